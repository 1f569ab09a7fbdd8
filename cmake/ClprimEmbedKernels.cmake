# clprim_embed_kernels(<target> <layer> <file.cl>...)
# Turns OpenCL C files into a generated C++ source that registers each file's text with the
# runtime's kernel-source registry under its file name, so no program needs the source tree.
set(CLPRIM_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/embed_kernels_script.cmake)
function(clprim_embed_kernels target layer)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${layer}_embedded_kernels.cpp)
  set(abs_files)
  foreach(f ${ARGN})
    get_filename_component(a ${f} ABSOLUTE)
    list(APPEND abs_files ${a})
  endforeach()
  string(REPLACE ";" "|" joined "${abs_files}")
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DLAYER=${layer} "-DFILES=${joined}" -P ${CLPRIM_EMBED_SCRIPT}
    DEPENDS ${abs_files} ${CLPRIM_EMBED_SCRIPT}
    COMMENT "Embedding ${layer} OpenCL kernels"
    VERBATIM)
  target_sources(${target} PRIVATE ${out})
endfunction()
