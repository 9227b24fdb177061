# Writes OUT with the suite's revision; rewrites it only when it changes.
# A revision passed in (-DSYNC_CTS_REVISION=..., as GIVEN, or the environment
# variable SYNC_CTS_REVISION at build time) wins: a copied tree may carry a
# .git that is not the one it was copied from.
if(NOT GIVEN AND NOT "$ENV{SYNC_CTS_REVISION}" STREQUAL "")
  set(GIVEN "$ENV{SYNC_CTS_REVISION}")
endif()
if(GIVEN)
  set(rev "${GIVEN}")
else()
  execute_process(COMMAND git describe --always --dirty --abbrev=12
                  WORKING_DIRECTORY ${SRC} OUTPUT_VARIABLE rev ERROR_QUIET
                  OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR rev STREQUAL "")
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
