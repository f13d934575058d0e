#include "runtime/intra_op_threads.hpp"

#include <ATen/Parallel.h>

namespace dvla {

int use_intra_op_threads(int threads) {
  (void)at::get_num_threads();  // the thread's first initialisation, which would override ours
  at::set_num_threads(threads);
  return at::get_num_threads();
}

}  // namespace dvla
