#include <dvla/runtime/policies/intra_op_threads.hpp>

#include <ATen/Parallel.h>

#include <algorithm>

#include <dvla/runtime/config/config.hpp>
#include <dvla/runtime/platform/blas_info.hpp>

namespace dvla {

int use_intra_op_threads(int threads) {
  (void)at::get_num_threads();  // the thread's first initialisation, which would override ours
  at::set_num_threads(threads);
  return at::get_num_threads();
}

int use_graph_threads(const GraphConfig& graph) {
  set_blas_threads(std::max(
      {graph.torch_threads, inference_torch_threads(graph), training_torch_threads(graph)}));
  return use_intra_op_threads(graph.torch_threads);
}

}  // namespace dvla
