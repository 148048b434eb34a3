// Text mode: stdout lines become MESSAGE_DELTA events and one MESSAGE_COMPLETED, stderr
// lines become warning NOTICEs, the exit code decides the outcome.
#include <gtest/gtest.h>

#include "plugin_instance.hpp"

namespace agentry::test {
namespace {

namespace json = boost::json;

TEST(SubprocessTextMode, StdoutLinesBecomeDeltasAndOneCompletedMessage) {
  SubprocessInstance instance;
  ASSERT_EQ(instance.start(config_json(shell("printf 'one\\ntwo\\n'; printf three"))), AGENTRY_OK);
  const json::object finished = instance.wait_finished();
  EXPECT_EQ(finished.at("outcome"), "success");
  EXPECT_EQ(finished.at("exitCode"), 0);

  const auto deltas = instance.events_of(AGENTRY_EVENT_MESSAGE_DELTA);
  ASSERT_EQ(deltas.size(), 3u);
  EXPECT_EQ(deltas[0].payload.at("text"), "one\n");
  EXPECT_EQ(deltas[1].payload.at("text"), "two\n");
  EXPECT_EQ(deltas[2].payload.at("text"), "three");
  for (const RecordedEvent& delta : deltas) EXPECT_EQ(delta.flags, AGENTRY_EVENT_FLAG_EPHEMERAL);

  const auto completed = instance.events_of(AGENTRY_EVENT_MESSAGE_COMPLETED);
  ASSERT_EQ(completed.size(), 1u);
  EXPECT_EQ(completed[0].payload.at("text"), "one\ntwo\nthree");
  EXPECT_EQ(completed[0].flags, 0u);
  EXPECT_EQ(instance.host().events().back().type, AGENTRY_EVENT_FINISHED);
}

TEST(SubprocessTextMode, StderrLinesBecomeWarningsAndANonzeroExitAnError) {
  SubprocessInstance instance;
  ASSERT_EQ(instance.start(config_json(shell("echo oops >&2; echo 'second problem' >&2; exit 3"))), AGENTRY_OK);
  const json::object finished = instance.wait_finished();
  EXPECT_EQ(finished.at("outcome"), "error");
  EXPECT_EQ(finished.at("message"), "command exited with code 3");
  EXPECT_EQ(finished.at("exitCode"), 3);

  const auto notices = instance.events_of(AGENTRY_EVENT_NOTICE);
  ASSERT_EQ(notices.size(), 2u);
  EXPECT_EQ(notices[0].payload, (json::object{{"level", "warning"}, {"message", "oops"}, {"stream", "stderr"}}));
  EXPECT_EQ(notices[1].payload.at("message"), "second problem");
  EXPECT_TRUE(instance.events_of(AGENTRY_EVENT_MESSAGE_COMPLETED).empty()) << "no stdout, no message";
}

TEST(SubprocessTextMode, LongStderrLinesAreCapped) {
  SubprocessInstance instance;
  ASSERT_EQ(instance.start(config_json(shell("head -c 20000 /dev/zero | tr '\\0' x >&2; echo >&2"))), AGENTRY_OK);
  EXPECT_EQ(instance.wait_finished().at("outcome"), "success");
  const auto notices = instance.events_of(AGENTRY_EVENT_NOTICE);
  ASSERT_EQ(notices.size(), 1u);
  const std::string message(notices[0].payload.at("message").as_string());
  EXPECT_LT(message.size(), 8 * 1024 + 100);
  EXPECT_NE(message.find("[... 11808 more bytes]"), std::string::npos) << message.substr(8150);
}

TEST(SubprocessTextMode, CompletedMessageKeepsTheTailOfLargeOutput) {
  SubprocessInstance instance;
  // 400 lines of 1000 bytes: 400 kB, more than the 256 KiB the message keeps.
  ASSERT_EQ(instance.start(config_json(shell("i=0; line=$(printf '%0999d' 0); while [ $i -lt 400 ]; do "
                                             "echo \"$line\"; i=$((i+1)); done; echo last"))),
            AGENTRY_OK);
  EXPECT_EQ(instance.wait_finished().at("outcome"), "success");
  EXPECT_EQ(instance.events_of(AGENTRY_EVENT_MESSAGE_DELTA).size(), 401u);
  const auto completed = instance.events_of(AGENTRY_EVENT_MESSAGE_COMPLETED);
  ASSERT_EQ(completed.size(), 1u);
  const std::string text(completed[0].payload.at("text").as_string());
  EXPECT_EQ(text.rfind("[... ", 0), 0u) << text.substr(0, 80);
  EXPECT_NE(text.find("bytes of earlier output omitted ...]\n"), std::string::npos);
  EXPECT_EQ(text.substr(text.size() - 5), "last\n");
  EXPECT_LE(text.size(), 256u * 1024 + 100);
}

TEST(SubprocessTextMode, BusyHostIsRetried) {
  SubprocessInstance instance;
  instance.host().answer_busy(20);
  ASSERT_EQ(instance.start(config_json(shell("echo a; echo b"))), AGENTRY_OK);
  EXPECT_EQ(instance.wait_finished().at("outcome"), "success");
  EXPECT_EQ(instance.events_of(AGENTRY_EVENT_MESSAGE_DELTA).size(), 2u);
  EXPECT_EQ(instance.events_of(AGENTRY_EVENT_MESSAGE_COMPLETED).size(), 1u);
}

TEST(SubprocessTextMode, AnInstanceRunsSeveralAttempts) {
  SubprocessInstance instance;
  ASSERT_EQ(instance.start(config_json(shell("echo first"))), AGENTRY_OK);
  EXPECT_EQ(instance.wait_finished().at("outcome"), "success");
  ASSERT_EQ(instance.start(config_json(shell("echo second; exit 1"))), AGENTRY_OK);
  EXPECT_EQ(instance.wait_finished().at("exitCode"), 1);
  const auto completed = instance.events_of(AGENTRY_EVENT_MESSAGE_COMPLETED);
  ASSERT_EQ(completed.size(), 2u);
  EXPECT_EQ(completed[1].payload.at("text"), "second\n");
}

}  // namespace
}  // namespace agentry::test
