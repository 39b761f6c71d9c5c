# Windows backend link dependencies. userenv.dll and firewallapi.dll are loaded
# at run time (see backend.c), so only advapi32 (ACLs, SIDs) is linked.
if(SBX_BACKEND STREQUAL "windows")
  list(APPEND SBX_LINK_LIBRARIES advapi32)
endif()
