# attnlab_embed_texts(VAR DIR DELIMITER FILE...) appends to VAR one line
#   {"FILE", R"DELIMITER(<the file's text>)DELIMITER"},
# per file of DIR, read byte for byte, and makes CMake run again when one of
# them changes. The .cu texts of the Kernel view (kernels/) and the headers
# NVRTC sees (app/core/nvrtc_headers/) are embedded with it.
function(attnlab_embed_texts var dir delimiter)
  set(out "${${var}}")
  foreach(f ${ARGN})
    file(READ ${dir}/${f} text)
    string(APPEND out "    {\"${f}\", R\"${delimiter}(${text})${delimiter}\"},\n")
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${dir}/${f})
  endforeach()
  set(${var} "${out}" PARENT_SCOPE)
endfunction()
