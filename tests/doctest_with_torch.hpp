#pragma once
// doctest for test files that include LibTorch: Debian's LibTorch logs through glog, whose CHECK
// macros collide with doctest's. Include this first; it drops glog's spellings.
#include <c10/util/Logging.h>

#undef CHECK
#undef CHECK_EQ
#undef CHECK_NE
#undef CHECK_LT
#undef CHECK_LE
#undef CHECK_GT
#undef CHECK_GE

#include <doctest/doctest.h>
