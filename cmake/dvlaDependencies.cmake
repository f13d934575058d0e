# The packages dvla's libraries link, found the same way by dvla's own build and by the installed
# dvlaConfig.cmake (where a missing one makes find_package(dvla) fail, naming it), and the
# imported targets Debian's packages lack.
include(CMakeFindDependencyMacro)
macro(dvla_dependency)
  if(CMAKE_FIND_PACKAGE_NAME STREQUAL "dvla")
    find_dependency(${ARGN})
  else()
    find_package(${ARGN} REQUIRED)
  endif()
endmacro()

dvla_dependency(Threads)
dvla_dependency(CAF)  # cmake/FindCAF.cmake: Debian ships CAF without a CMake package
dvla_dependency(CapnProto)
dvla_dependency(fmt)
dvla_dependency(nlohmann_json)
dvla_dependency(Torch)
dvla_dependency(mujoco)

# Debian's mujoco target names /usr/include/libqhull_r, which only libqhull-dev provides; the
# public headers need just /usr/include.
set_target_properties(mujoco::mujoco PROPERTIES INTERFACE_INCLUDE_DIRECTORIES /usr/include)
# hwloc (libhwloc-dev) has no CMake package: a node describes its machine's topology with it.
if(NOT TARGET hwloc::hwloc)
  find_path(HWLOC_INCLUDE_DIR hwloc.h REQUIRED)
  find_library(HWLOC_LIBRARY hwloc REQUIRED)
  add_library(hwloc::hwloc UNKNOWN IMPORTED)
  set_target_properties(hwloc::hwloc PROPERTIES IMPORTED_LOCATION "${HWLOC_LIBRARY}"
                        INTERFACE_INCLUDE_DIRECTORIES "${HWLOC_INCLUDE_DIR}")
endif()
if(NOT TARGET EGL::EGL)
  find_library(EGL_LIBRARY EGL REQUIRED)
  add_library(EGL::EGL UNKNOWN IMPORTED)
  set_target_properties(EGL::EGL PROPERTIES IMPORTED_LOCATION "${EGL_LIBRARY}")
endif()
