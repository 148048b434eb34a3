// What the daemon's loader relies on, checked on every built plugin: one exported
// symbol, a readable entry, reference-counted init, descriptors, and the failure modes.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "abi/plugin_fixture.hpp"

namespace agentry::abi_test {
namespace {

const std::vector<std::string> kLoadableFakes = {"ok",           "instance_init_fails", "malformed_json",
                                                 "never_terminal", "many_threads",     "emits_after_grace"};

std::string path_of(const std::string& plugin) {
  return plugin == "mock" ? mock_plugin_path() : fake_plugin_path(plugin);
}

class EveryPlugin : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryPlugin, ExportsOnlyTheEntrySymbol) {
  const std::string path = path_of(GetParam());
  ASSERT_FALSE(path.empty()) << "AGENTRY_MOCK_PLUGIN / AGENTRY_ABI_FAKES_DIR not set";
  const auto symbols = exported_symbols(path);
  if (GetParam() == "no_entry") {
    EXPECT_TRUE(symbols.empty()) << symbols.front();
  } else {
    EXPECT_EQ(symbols, std::vector<std::string>{"agentry_plugin_entry"});
  }
  // A C++ symbol the library certainly contains must not be reachable through dlsym.
  Library lib(path);
  ASSERT_TRUE(lib.loaded()) << lib.error();
  EXPECT_EQ(lib.symbol("_ZN7agentry6plugin7BackendD2Ev"), nullptr);
}

INSTANTIATE_TEST_SUITE_P(Abi, EveryPlugin,
                         ::testing::Values("mock", "ok", "no_entry", "wrong_major", "init_fails",
                                           "instance_init_fails", "malformed_json", "never_terminal",
                                           "many_threads"));

TEST(PluginLoading, NoEntryHasNoEntrySymbol) {
  Library lib(fake_plugin_path("no_entry"));
  ASSERT_TRUE(lib.loaded()) << lib.error();
  EXPECT_EQ(lib.entry(), nullptr);
}

TEST(PluginLoading, WrongMajorIsIncompatible) {
  Library lib(fake_plugin_path("wrong_major"));
  ASSERT_TRUE(lib.loaded()) << lib.error();
  ASSERT_NE(lib.entry(), nullptr);
  EXPECT_EQ(lib.entry()->abi_version.major, 99u);
  EXPECT_FALSE(agentry_version_is_compatible(lib.entry()->abi_version));
}

TEST(PluginLoading, InitFailsRefusesToLoad) {
  Library lib(fake_plugin_path("init_fails"));
  ASSERT_NE(lib.entry(), nullptr);
  EXPECT_FALSE(lib.entry()->init(fake_plugin_path("init_fails").c_str()));
}

TEST(PluginLoading, InstanceInitFailsThenDestroys) {
  InitializedPlugin plugin(fake_plugin_path("instance_init_fails"));
  ASSERT_TRUE(plugin.ok());
  Instance instance(plugin, "fake-instance_init_fails");
  ASSERT_TRUE(instance.created());
  EXPECT_EQ(instance.init(), AGENTRY_ERR_INTERNAL);
  instance.destroy();  // what the host does after a failed init
}

class LoadableFake : public ::testing::TestWithParam<std::string> {};

TEST_P(LoadableFake, EntryAndDescriptors) {
  const std::string path = fake_plugin_path(GetParam());
  Library lib(path);
  ASSERT_TRUE(lib.loaded()) << lib.error();
  const agentry_plugin_entry_t* entry = lib.entry();
  ASSERT_NE(entry, nullptr);
  EXPECT_TRUE(agentry_version_is_compatible(entry->abi_version));
  EXPECT_EQ(entry->abi_version.major, AGENTRY_PLUGIN_ABI_MAJOR);
  EXPECT_EQ(entry->get_factory(AGENTRY_BACKEND_FACTORY_ID), nullptr) << "a factory before init()";

  // Reference-counted (obligation 2): two inits, then the factory survives one deinit.
  ASSERT_TRUE(entry->init(path.c_str()));
  ASSERT_TRUE(entry->init(path.c_str()));
  entry->deinit();
  const auto* factory = static_cast<const agentry_backend_factory_t*>(entry->get_factory(AGENTRY_BACKEND_FACTORY_ID));
  ASSERT_NE(factory, nullptr);
  EXPECT_EQ(entry->get_factory("agentry.no-such-factory/1"), nullptr);

  ASSERT_EQ(factory->get_backend_count(factory), 1u);
  const agentry_backend_descriptor_t* d = factory->get_backend_descriptor(factory, 0);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(factory->get_backend_descriptor(factory, 1), nullptr);
  EXPECT_STREQ(d->id, ("fake-" + GetParam()).c_str());
  EXPECT_TRUE(agentry_version_is_compatible(d->abi_version));
  ASSERT_NE(d->name, nullptr);
  ASSERT_NE(d->features, nullptr);
  EXPECT_STREQ(d->features[0], AGENTRY_FEATURE_INTERRUPT);
  EXPECT_EQ(d->features[1], nullptr);

  TestHost host;
  EXPECT_EQ(factory->create_backend(factory, host.table(), "no-such-backend"), nullptr);
  const agentry_backend_t* b = factory->create_backend(factory, host.table(), d->id);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->desc, d);
  b->destroy(b);  // straight from created: allowed, and must not call the host
  EXPECT_TRUE(host.logs().empty());

  entry->deinit();
  entry->deinit();  // unmatched: ignored
  EXPECT_EQ(entry->get_factory(AGENTRY_BACKEND_FACTORY_ID), nullptr);
}

INSTANTIATE_TEST_SUITE_P(Abi, LoadableFake, ::testing::ValuesIn(kLoadableFakes));

TEST(PluginLoading, MockDescriptor) {
  InitializedPlugin plugin(mock_plugin_path());
  ASSERT_TRUE(plugin.ok());
  const auto* f = plugin.factory();
  ASSERT_EQ(f->get_backend_count(f), 1u);
  const agentry_backend_descriptor_t* d = f->get_backend_descriptor(f, 0);
  EXPECT_STREQ(d->id, "mock");
  std::vector<std::string> features;
  for (const char* const* p = d->features; *p != nullptr; ++p) features.emplace_back(*p);
  EXPECT_EQ(features, (std::vector<std::string>{"resume", "interrupt", "input", "approvals", "ask"}));
}

}  // namespace
}  // namespace agentry::abi_test
