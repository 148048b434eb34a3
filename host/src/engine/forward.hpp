#pragma once
// The types engine service headers name by reference only, declared once, so that a
// header does not pull the store interface, the event bus or the pools into everyone
// who includes it.

namespace agentry::core {
class BlockingPool;
class ThreadPool;
}  // namespace agentry::core

namespace agentry::events {
class EventBus;
}  // namespace agentry::events

namespace agentry::store {
class Store;
class Transaction;
}  // namespace agentry::store

namespace agentry::engine {
class Attachments;
class BackendCatalog;
class HookJobs;
class RunStarts;
}  // namespace agentry::engine
