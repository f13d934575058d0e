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
dvla_dependency(Protobuf)  # TensorBoard event files
dvla_dependency(GIF)       # evaluation videos (giflib)
dvla_dependency(OpenSSL)   # peers prove their certificates' identity (runtime/cluster)

# Debian's mujoco target names /usr/include/libqhull_r, which only libqhull-dev provides; the
# public headers need just /usr/include.
set_target_properties(mujoco::mujoco PROPERTIES INTERFACE_INCLUDE_DIRECTORIES /usr/include)
# An imported target for a Debian library that ships no CMake package: its header and library.
macro(dvla_imported_library target header library)
  if(NOT TARGET ${target})
    string(MAKE_C_IDENTIFIER "${target}" id)
    find_path(${id}_INCLUDE_DIR ${header} REQUIRED)
    find_library(${id}_LIBRARY ${library} REQUIRED)
    add_library(${target} UNKNOWN IMPORTED)
    set_target_properties(${target} PROPERTIES IMPORTED_LOCATION "${${id}_LIBRARY}"
                          INTERFACE_INCLUDE_DIRECTORIES "${${id}_INCLUDE_DIR}")
  endif()
endmacro()
# hwloc (libhwloc-dev): a node describes its machine's topology with it.
dvla_imported_library(hwloc::hwloc hwloc.h hwloc)
# xxHash (libxxhash-dev): checksums of weights crossing nodes.
dvla_imported_library(xxHash::xxhash xxhash.h xxhash)
if(NOT TARGET EGL::EGL)
  find_library(EGL_LIBRARY EGL REQUIRED)
  add_library(EGL::EGL UNKNOWN IMPORTED)
  set_target_properties(EGL::EGL PROPERTIES IMPORTED_LOCATION "${EGL_LIBRARY}")
endif()
