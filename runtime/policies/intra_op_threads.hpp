#pragma once
// Per-thread LibTorch intra-op threads, so that each lane gets its own count (inference and
// training need not share one process-wide setting).
//
// With LibTorch's OpenMP backend the count is the calling thread's OpenMP setting, but LibTorch
// applies its process-wide value to a thread on that thread's first parallel call, which would
// undo a setting made before it. use_intra_op_threads() triggers that first initialisation, then
// sets the count, so the setting sticks. BLAS threads (OpenBLAS) stay process-wide.
namespace dvla {

struct GraphConfig;

// Sets the calling thread's intra-op threads; answers the count LibTorch now reports for it.
int use_intra_op_threads(int threads);

// The threads a run computes with, for work outside the lanes (a main thread's evaluation): the
// calling thread's intra-op threads at graph.torch_threads (the evaluator's count) and the BLAS
// pool at the most any lane uses. Why both: the thread counts change the order of float sums,
// which flips episodes near success (a lift checkpoint: 80.8% of 120 episodes on 1 thread, 76.7% on
// 2), so a checkpoint evaluated alone gives the figure its run recorded only with the run's counts.
// Answers the intra-op threads LibTorch now reports for the calling thread.
int use_graph_threads(const GraphConfig& graph);

}  // namespace dvla
