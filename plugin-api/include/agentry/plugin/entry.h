/* agentry plugin ABI: the one symbol a plugin library exports.
 *
 * A plugin defines `const agentry_plugin_entry_t agentry_plugin_entry = {...};` with
 * default visibility (AGENTRY_PLUGIN_EXPORT) and hides every other symbol. The host
 * dlopen()s the library (RTLD_NOW | RTLD_LOCAL), reads this object, checks
 * abi_version with agentry_version_is_compatible(), then calls init(). */
#ifndef AGENTRY_PLUGIN_ENTRY_H
#define AGENTRY_PLUGIN_ENTRY_H

#include "agentry/plugin/version.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AGENTRY_PLUGIN_ENTRY_SYMBOL "agentry_plugin_entry"

#if defined(__GNUC__)
#define AGENTRY_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define AGENTRY_PLUGIN_EXPORT
#endif

typedef struct agentry_plugin_entry {
  agentry_version_t abi_version; /* AGENTRY_PLUGIN_ABI_VERSION_INIT */

  /* Called before anything else, with the library's absolute path. Must be cheap (no
   * network, no processes), must not call the host, and is reference-counted: a host
   * may call init() several times and deinit() as many times. Returns false to refuse
   * loading (the host then unloads the library without calling deinit()). */
  bool (*init)(const char* plugin_path);

  /* Matches one successful init(). After the last one the library holds no threads
   * or resources. */
  void (*deinit)(void);

  /* [thread-safe] The factory with `factory_id` (AGENTRY_BACKEND_FACTORY_ID), or NULL.
   * Owned by the plugin, valid until the last deinit(). */
  const void* (*get_factory)(const char* factory_id);
} agentry_plugin_entry_t;

#ifdef __cplusplus
}
#endif

#endif /* AGENTRY_PLUGIN_ENTRY_H */
