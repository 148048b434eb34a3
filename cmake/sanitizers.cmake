# Sanitizers apply to every target, including plugins and tests, so one build is consistent.
if(AGENTRY_SANITIZE)
  list(JOIN AGENTRY_SANITIZE "," _agentry_san)
  add_compile_options(-fsanitize=${_agentry_san} -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=${_agentry_san})
endif()
