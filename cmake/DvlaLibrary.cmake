# dvla_library(<target> [INTERFACE] EXPORT_NAME <name> FOLDERS <folder>... [SOURCES <file>...])
#
# A library of dvla whose headers are included as <dvla/FOLDER/...>, the way a user of the
# installed package includes them. Source folders keep their names at the top of the tree; the
# build tree gets a link include/<target>/dvla/<folder> -> <source>/<folder>, so each target's
# build interface shows its own headers only (a layer cannot include a layer it does not link),
# and installing copies the same headers to <prefix>/include/dvla/<folder>. The target is
# exported as dvla::<name>.
function(dvla_library target)
  cmake_parse_arguments(arg "INTERFACE" "EXPORT_NAME" "FOLDERS;SOURCES" ${ARGN})
  if(arg_INTERFACE)
    add_library(${target} INTERFACE)
    set(scope INTERFACE)
  else()
    add_library(${target} STATIC ${arg_SOURCES})
    set(scope PUBLIC)
  endif()
  set(root "${PROJECT_BINARY_DIR}/include/${target}")
  foreach(folder IN LISTS arg_FOLDERS)
    set(link "${root}/dvla/${folder}")
    get_filename_component(parent "${link}" DIRECTORY)
    file(MAKE_DIRECTORY "${parent}")
    file(CREATE_LINK "${PROJECT_SOURCE_DIR}/${folder}" "${link}" SYMBOLIC)
    install(DIRECTORY "${PROJECT_SOURCE_DIR}/${folder}/"
            DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/dvla/${folder}"
            FILES_MATCHING PATTERN "*.hpp")
  endforeach()
  target_include_directories(${target} ${scope} "$<BUILD_INTERFACE:${root}>"
                                                "$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>")
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${arg_EXPORT_NAME})
  add_library(dvla::${arg_EXPORT_NAME} ALIAS ${target})
  install(TARGETS ${target} EXPORT dvlaTargets
          ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
          INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
endfunction()
