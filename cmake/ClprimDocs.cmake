# The API reference (Doxygen, Debian's `doxygen`): target clprim_docs writes build/docs/html and
# fails on any Doxygen warning (an undocumented public name included). See docs/Doxyfile.in.
find_program(CLPRIM_DOXYGEN_EXECUTABLE doxygen)
if(NOT CLPRIM_DOXYGEN_EXECUTABLE)
  message(STATUS "clprim: doxygen not found, no clprim_docs target")
  return()
endif()
# Every public header of every layer: include/clprim/*.hpp and <layer>/include/clprim/*.hpp
# (detail/ is one level deeper, so not matched). CONFIGURE_DEPENDS: a header added later
# re-runs the glob at the next build.
file(GLOB CLPRIM_PUBLIC_HEADERS CONFIGURE_DEPENDS
  ${PROJECT_SOURCE_DIR}/include/clprim/*.hpp
  ${PROJECT_SOURCE_DIR}/*/include/clprim/*.hpp)
# One page per primitive family (docs/reference/<family>.dox) and the front page.
file(GLOB CLPRIM_DOCS_PAGES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/reference/*.dox)
list(SORT CLPRIM_PUBLIC_HEADERS)
list(SORT CLPRIM_DOCS_PAGES)
set(CLPRIM_DOCS_FILES ${CLPRIM_DOCS_PAGES} ${CLPRIM_GENERATED_INCLUDE_DIR}/clprim/config.hpp ${CLPRIM_PUBLIC_HEADERS})
set(CLPRIM_DOCS_OUTPUT_DIR ${PROJECT_BINARY_DIR}/docs)
list(JOIN CLPRIM_DOCS_FILES " \\\n    " CLPRIM_DOCS_INPUT)
set(CLPRIM_DOCS_INCLUDE_ROOTS ${CLPRIM_GENERATED_INCLUDE_DIR} ${PROJECT_SOURCE_DIR}/include)
foreach(header ${CLPRIM_PUBLIC_HEADERS})
  get_filename_component(dir ${header} DIRECTORY)   # .../<layer>/include/clprim
  get_filename_component(dir ${dir} DIRECTORY)      # .../<layer>/include
  list(APPEND CLPRIM_DOCS_INCLUDE_ROOTS ${dir})
endforeach()
list(REMOVE_DUPLICATES CLPRIM_DOCS_INCLUDE_ROOTS)
list(JOIN CLPRIM_DOCS_INCLUDE_ROOTS " " CLPRIM_DOCS_INCLUDE_ROOTS)
configure_file(${PROJECT_SOURCE_DIR}/docs/Doxyfile.in ${CLPRIM_DOCS_OUTPUT_DIR}/Doxyfile @ONLY)
add_custom_target(clprim_docs
  COMMAND ${CMAKE_COMMAND} -E remove_directory ${CLPRIM_DOCS_OUTPUT_DIR}/html
  COMMAND ${CLPRIM_DOXYGEN_EXECUTABLE} ${CLPRIM_DOCS_OUTPUT_DIR}/Doxyfile
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
  DEPENDS ${CLPRIM_DOCS_FILES} ${CLPRIM_DOCS_OUTPUT_DIR}/Doxyfile
  COMMENT "Doxygen: API reference into ${CLPRIM_DOCS_OUTPUT_DIR}/html (any warning fails)"
  VERBATIM)
