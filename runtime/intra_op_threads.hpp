#pragma once
// Per-thread LibTorch intra-op threads, so that each lane gets its own count (inference and
// training need not share one process-wide setting).
//
// With LibTorch's OpenMP backend the count is the calling thread's OpenMP setting, but LibTorch
// applies its process-wide value to a thread on that thread's first parallel call, which would
// undo a setting made before it. use_intra_op_threads() triggers that first initialisation, then
// sets the count, so the setting sticks. BLAS threads (OpenBLAS) stay process-wide.
namespace dvla {

// Sets the calling thread's intra-op threads; answers the count LibTorch now reports for it.
int use_intra_op_threads(int threads);

}  // namespace dvla
