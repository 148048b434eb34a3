#include "api/request_metrics.hpp"

#include <gtest/gtest.h>

namespace agentry::api {
namespace {

TEST(RouteClass, IsTheFirstLiteralSegmentAfterApiOrEventsForStreams) {
  EXPECT_EQ(route_class_of("/api/runs"), "runs");
  EXPECT_EQ(route_class_of("/api/runs/:runId/tasks/plan"), "runs");
  EXPECT_EQ(route_class_of("/api/schedules/:runId"), "schedules");
  EXPECT_EQ(route_class_of("/api/runs/:runId/events/timeline"), "events");
  EXPECT_EQ(route_class_of("/api/events/run-summaries"), "events");
  EXPECT_EQ(route_class_of("/api/:anything"), "api");
  EXPECT_EQ(route_class_of("/metrics"), "metrics");
  EXPECT_EQ(route_class_of("/app-config.json"), "app-config.json");
  EXPECT_EQ(route_class_of("/"), "root");
}

}  // namespace
}  // namespace agentry::api
