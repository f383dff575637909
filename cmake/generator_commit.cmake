# Writes OUT: the commit that last changed the code generator's sources (DIRS, under SOURCE_DIR),
# with "-dirty" when they differ from it, or "unknown" outside a git checkout. Run at every
# build; the file is rewritten only when its text changes, so an unrelated commit rebuilds
# nothing.
set(commit "unknown")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${SOURCE_DIR}/.git")
  separate_arguments(dirs UNIX_COMMAND "${DIRS}")
  execute_process(COMMAND "${GIT_EXECUTABLE}" log -1 --format=%H -- ${dirs}
    WORKING_DIRECTORY "${SOURCE_DIR}" OUTPUT_VARIABLE head RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(rc EQUAL 0 AND NOT head STREQUAL "")
    set(commit "${head}")
    execute_process(COMMAND "${GIT_EXECUTABLE}" status --porcelain -- ${dirs}
      WORKING_DIRECTORY "${SOURCE_DIR}" OUTPUT_VARIABLE changes ERROR_QUIET)
    if(NOT changes STREQUAL "")
      set(commit "${commit}-dirty")
    endif()
  endif()
endif()
set(text "\"${commit}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
