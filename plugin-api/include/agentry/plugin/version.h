/* agentry plugin ABI: version numbers and the compatibility rule.
 *
 * major: breaking changes. A host loads a plugin only when the majors are equal.
 *        Major 0 is pre-release: major AND minor must then match exactly.
 * minor: additive changes only (fields appended to structs, new event types, new
 *        extensions). A reader checks the peer's minor, or a struct_size field, before
 *        touching anything a later minor added.
 * patch: documentation and clarifications only. */
#ifndef AGENTRY_PLUGIN_VERSION_H
#define AGENTRY_PLUGIN_VERSION_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct agentry_version {
  uint32_t major;
  uint32_t minor;
  uint32_t patch;
} agentry_version_t;

#define AGENTRY_PLUGIN_ABI_MAJOR 1u
#define AGENTRY_PLUGIN_ABI_MINOR 2u
#define AGENTRY_PLUGIN_ABI_PATCH 0u
#define AGENTRY_PLUGIN_ABI_VERSION_INIT \
  { AGENTRY_PLUGIN_ABI_MAJOR, AGENTRY_PLUGIN_ABI_MINOR, AGENTRY_PLUGIN_ABI_PATCH }

/* True when a peer built against `v` can be used by code built against this header. */
static inline bool agentry_version_is_compatible(agentry_version_t v) {
  if (v.major != AGENTRY_PLUGIN_ABI_MAJOR) return false;
  if (v.major == 0) return v.minor == AGENTRY_PLUGIN_ABI_MINOR;
  return true;
}

#ifdef __cplusplus
}
#endif

#endif /* AGENTRY_PLUGIN_VERSION_H */
