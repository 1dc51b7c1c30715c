# cmake -DCXX=g++ -DINCLUDES="dir|dir…" -DSOURCE=message_key_misspelled.cpp -P message_key_misspelled.cmake
#
# The test that a message key is checked by the compiler: the source compiles
# with the right key, and fails to compile, naming the error, with a
# misspelled constant and with a plain string where a key goes.
string(REPLACE "|" ";" dirs "${INCLUDES}")
set(flags -std=c++17 -fsyntax-only)
foreach(dir IN LISTS dirs)
  list(APPEND flags "-I${dir}")
endforeach()

function(compile define result_var output_var)
  execute_process(COMMAND ${CXX} ${flags} ${define} ${SOURCE}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(${result_var} "${rc}" PARENT_SCOPE)
  set(${output_var} "${out}${err}" PARENT_SCOPE)
endfunction()

compile("-DRIGHT_KEY" rc out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the right key does not compile, so this test proves nothing:\n${out}")
endif()

compile("-DMISSPELLED" rc out)
if(rc EQUAL 0 OR NOT out MATCHES "verdict_pas")
  message(FATAL_ERROR "a misspelled key (msg::verdict_pas) compiled, or its error does not name it:\n${out}")
endif()

compile("-DPLAIN_STRING" rc out)
if(rc EQUAL 0 OR NOT out MATCHES "error")
  message(FATAL_ERROR "a plain string passed as a key compiled:\n${out}")
endif()
message(STATUS "a misspelled key and a plain string fail to compile; the right key compiles")
