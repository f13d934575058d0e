#pragma once
// Which BLAS library this process loaded: Debian's LibTorch uses whatever libblas.so.3 points
// to, and the reference BLAS is many times slower than OpenBLAS, so runs and benchmarks say it.
#include <string>

namespace dvla {

// The resolved path of the loaded BLAS (e.g. ".../openblas-pthread/libblas.so.3"), or "unknown".
std::string loaded_blas();

// Caps the BLAS library's own thread pool. OpenBLAS otherwise starts a spinning thread per core,
// which competes with dvla's lanes (measured: CartPole PPO ran 2.2x faster capped at 1 thread on
// 2 cores). Returns false when the loaded BLAS has no such control (e.g. the reference BLAS).
bool set_blas_threads(int threads);

// The BLAS library's thread pool as it now stands (OpenBLAS's count); 0 where the loaded BLAS does
// not say (e.g. the reference BLAS).
int blas_threads();

// "PATH (N thread[s])", or "PATH (threads not known)": what a process computes with, for its log.
std::string blas_text();

}  // namespace dvla
