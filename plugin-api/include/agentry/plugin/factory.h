/* agentry plugin ABI: the backend factory, fetched from the entry by id. */
#ifndef AGENTRY_PLUGIN_FACTORY_H
#define AGENTRY_PLUGIN_FACTORY_H

#include "agentry/plugin/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AGENTRY_BACKEND_FACTORY_ID "agentry.backend-factory/1"

typedef struct agentry_backend_factory {
  /* [thread-safe] How many backends this library provides. */
  uint32_t (*get_backend_count)(const struct agentry_backend_factory* factory);

  /* [thread-safe] The descriptor at `index`, or NULL when out of range. Owned by the
   * plugin, valid until the entry's deinit(). */
  const agentry_backend_descriptor_t* (*get_backend_descriptor)(const struct agentry_backend_factory* factory,
                                                                 uint32_t index);

  /* [thread-safe] A new instance of backend `backend_id`, or NULL. Must not call any
   * host function. `host` stays valid until the instance's destroy() has returned.
   * The instance is owned by the plugin and freed by its destroy(). */
  const agentry_backend_t* (*create_backend)(const struct agentry_backend_factory* factory,
                                             const agentry_host_t* host, const char* backend_id);
} agentry_backend_factory_t;

#ifdef __cplusplus
}
#endif

#endif /* AGENTRY_PLUGIN_FACTORY_H */
