# Run after the addon is linked (POST_BUILD): a shared library links with undefined symbols, which the
# loader only finds when Node loads it, and then no case at all can run. A fusebench symbol left undefined
# is a kernel declared and never defined, most often a case whose CUDA half is missing (its .cu, with
# FB_CUDA_VARIANTS, while the CUDA backend is built). Node's own symbols (napi_*) are undefined by design.
# The addon is removed, so no half-built one is left to load. Without nm, the check is skipped with a word.
find_program(FB_NM NAMES nm)
if(NOT FB_NM)
  message(WARNING "fusebench: nm not found; the addon's undefined symbols were not checked")
  return()
endif()
execute_process(COMMAND "${FB_NM}" -u -C "${ADDON}" OUTPUT_VARIABLE undefined RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(WARNING "fusebench: nm -u ${ADDON} failed (${status}); the addon's undefined symbols were not checked")
  return()
endif()
string(REGEX MATCHALL "[^\n]*fusebench::[^\n]*" ours "${undefined}")
if(ours)
  list(TRANSFORM ours STRIP)
  list(TRANSFORM ours REPLACE "^U " "")
  list(JOIN ours "\n  " listed)
  file(REMOVE "${ADDON}")
  message(FATAL_ERROR
    "fusebench: the addon declares kernels it never defines, so Node could not load it:\n  ${listed}\n"
    "A case folder with FB_CUDA_VARIANTS in its .cc needs its .cu (docs/adding-a-case.md), or the CUDA "
    "backend switched off (FUSEBENCH_CUDA=0 npm run build). The addon was removed.")
endif()
