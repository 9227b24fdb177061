# Writes OUT with the suite's git revision; rewrites it only when it changes.
execute_process(COMMAND git describe --always --dirty --abbrev=12
                WORKING_DIRECTORY ${SRC} OUTPUT_VARIABLE rev ERROR_QUIET
                OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR rev STREQUAL "")
  if(GIVEN)
    set(rev "${GIVEN}")
  else()
    set(rev "unknown")
  endif()
endif()
set(text "#define CTS_REVISION \"${rev}\"\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE ${OUT} "${text}")
endif()
