message(FATAL_ERROR "not yet")
