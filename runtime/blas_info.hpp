#pragma once
// Which BLAS library this process loaded: Debian's LibTorch uses whatever libblas.so.3 points
// to, and the reference BLAS is many times slower than OpenBLAS, so runs and benchmarks say it.
#include <string>

namespace dvla {

// The resolved path of the loaded BLAS (e.g. ".../openblas-pthread/libblas.so.3"), or "unknown".
std::string loaded_blas();

}  // namespace dvla
