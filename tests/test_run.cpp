// A run's bookkeeping, without actors: the status built from typed reports (per env group, across
// a resume), the checkpoint and evaluation schedule, the env-step budget split among samplers, and
// a multi-node run's nodes (their figures, their size, the config they get).
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>

#include <dvla/runtime/cluster/cluster_tally.hpp>
#include <dvla/runtime/cluster/node_assignment.hpp>
#include <dvla/runtime/run/evaluation_target.hpp>
#include <dvla/runtime/run/snapshot_schedule.hpp>
#include <dvla/runtime/run/status_tally.hpp>
#include <dvla/runtime/run/step_budgets.hpp>

using namespace dvla;

TEST_CASE("the tally sums env steps and episodes per group and over the run") {
  StatusTally tally({"lift", "push"});
  REQUIRE(tally.add(msg::SamplingReport{0, 100, {1.0, 3.0}, {true, false}, 0}));
  REQUIRE(tally.add(msg::SamplingReport{1, 40, {10.0}, {true}, 2}));
  const auto& s = tally.status();
  CHECK(s.env_steps == 140);
  CHECK(s.episodes == 3);
  CHECK(s.mean_return == doctest::Approx(14.0 / 3));
  CHECK(s.success_rate == doctest::Approx(2.0 / 3));
  CHECK(s.segments_dropped == 2);
  REQUIRE(s.groups.size() == 2);
  CHECK(s.groups[0].name == "lift");
  CHECK(s.groups[0].env_steps == 100);
  CHECK(s.groups[0].episodes == 2);
  CHECK(s.groups[0].mean_return == doctest::Approx(2.0));
  CHECK(s.groups[0].success_rate == doctest::Approx(0.5));
  CHECK(s.groups[1].env_steps == 40);
  CHECK(s.groups[1].success_rate == 1.0);
  // A report naming a group the run does not have is refused, not a silent miscount.
  CHECK(tally.add(msg::SamplingReport{2, 1, {}, {}, 0}).error().message() ==
        "a sampling report names env group 2, the run has 2");
  CHECK(s.env_steps == 140);
}

TEST_CASE("the running means cover the last 100 episodes") {
  StatusTally tally({"g"});
  for (int i = 0; i < 150; ++i)
    REQUIRE(tally.add(msg::SamplingReport{0, 1, {double(i)}, {i >= 100}, 0}));
  CHECK(tally.status().mean_return == doctest::Approx((50 + 149) / 2.0));
  CHECK(tally.status().success_rate == doctest::Approx(0.5));
  CHECK(tally.status().episodes == 150);
}

TEST_CASE("versions, updates and evaluations; a resumed run goes on from its counters") {
  StatusTally tally({"g"}, ResumedCounters{10, 5000, 40, 4000});
  CHECK(tally.status().version == 10);
  REQUIRE(tally.add(msg::SamplingReport{0, 200, {}, {}, 0}));
  CHECK(tally.env_steps_here() == 200);
  CHECK(tally.status().env_steps == 5200);
  CHECK(tally.status().groups[0].env_steps == 200);  // groups count this process
  // Lag is averaged over the samples trained in this process: 1000 at lag 1, then 3000 at lag 2.
  tally.add(msg::VersionAnnouncement{11, 5000, 0, 1.0});
  tally.add(msg::VersionAnnouncement{12, 8000, 7, 2.0});
  CHECK(tally.status().version == 12);
  CHECK(tally.status().dropped_stale == 7);
  CHECK(tally.status().policy_lag_mean == doctest::Approx((1000 * 1.0 + 3000 * 2.0) / 4000));
  msg::LearningReport update;
  update.stats.samples = 3000;
  update.policy_lag = {0, 1000, 2000};
  tally.add(update);
  tally.add(update);
  CHECK(tally.status().learner.samples == 3000);
  CHECK(tally.status().policy_lag_samples == std::vector<uint64_t>{0, 2000, 4000});
  tally.add(msg::EvaluationReport{12, 20, 0.75, 3.5, 40, {{"lift", 0.75}}, "", ""}, 5100, 2.5);
  CHECK(tally.status().evaluations == 1);
  CHECK(tally.status().last_evaluation.version == 12);
  CHECK(tally.status().last_evaluation.env_steps == 5100);
  CHECK(tally.status().last_evaluation.wall_seconds == 2.5);
  CHECK(tally.status().last_evaluation.success_per_family.at("lift") == 0.75);
  tally.add_rejection();
  CHECK(tally.status().rejected_messages == 1);
}

TEST_CASE(
    "checkpoints and evaluations fall due every so many versions, evaluations one at a time") {
  RunConfig run;
  run.logdir = "runs/x";
  run.checkpoint_every = 10;
  run.eval_every = 4;
  SnapshotSchedule schedule(run, 0, /*can_evaluate=*/true);
  CHECK_FALSE(schedule.on_version(3, false).evaluation);
  CHECK(schedule.on_version(4, false).evaluation);
  CHECK_FALSE(schedule.on_version(8, true).evaluation);  // none can be taken: this one waits
  CHECK(schedule.on_version(9, false).evaluation);       // the first version after it ends
  const auto both = schedule.on_version(13, false);      // due together: the checkpoint's
  CHECK(both.checkpoint);                                // weights are evaluated
  CHECK(both.evaluation);
  CHECK_FALSE(schedule.on_version(22, false).checkpoint);
  CHECK(schedule.on_version(23, false).checkpoint);
  // No logdir: no checkpoints; no evaluator: no evaluations; a resumed run counts from its
  // version.
  run.logdir.clear();
  SnapshotSchedule resumed(run, 100, /*can_evaluate=*/false);
  for (uint64_t v = 100; v < 130; ++v) {
    const auto due = resumed.on_version(v, false);
    CHECK_FALSE(due.checkpoint);
    CHECK_FALSE(due.evaluation);
  }
}

TEST_CASE("an evaluation reaches stop.eval_success or stop.eval_return; a target of 0 never") {
  RunConfig run;
  msg::EvaluationReport e{7, 10, 0.5, 120.0, 120.0, {}, "", ""};
  CHECK(reached_target(e, run).empty());
  run.stop_eval_return = 120;
  CHECK(reached_target(e, run) == "stop.eval_return");
  run.stop_eval_success = 0.6;
  CHECK(reached_target(e, run) == "stop.eval_return");
  e.success_rate = 0.6;
  CHECK(reached_target(e, run) == "stop.eval_success");
  e.mean_return = 119.9;
  run.stop_eval_success = 0;
  CHECK(reached_target(e, run).empty());
  e.episodes = 0;  // no evaluation yet
  e.mean_return = 500;
  CHECK(reached_target(e, run).empty());
}

TEST_CASE("the env-step budget is split in batched steps, as evenly as the samplers' sizes allow") {
  auto total = [](const std::vector<uint64_t>& budgets, const std::vector<uint64_t>& envs) {
    uint64_t sum = 0;
    for (size_t i = 0; i < envs.size(); ++i) sum += budgets[i] * envs[i];
    return sum;
  };
  // Samplers of one size: as before, the first ones one step more.
  CHECK(step_budgets(100, {8, 8}) == std::vector<uint64_t>{7, 6});
  CHECK(step_budgets(96, {8, 8}) == std::vector<uint64_t>{6, 6});
  // Two groups (16 and 4 envs): equal steps, then extra ones until the budget is covered.
  const std::vector<uint64_t> envs{8, 8, 4};
  for (uint64_t left : {0, 1, 19, 20, 21, 999, 24'000}) {
    CAPTURE(left);
    const auto budgets = step_budgets(left, envs);
    CHECK(total(budgets, envs) >= left);
    CHECK(total(budgets, envs) < left + 20);  // never a whole extra round
    CHECK(*std::max_element(budgets.begin(), budgets.end()) -
              *std::min_element(budgets.begin(), budgets.end()) <=
          1);
  }
}

TEST_CASE("the cluster tally counts each node's acknowledged segments and names a lost node") {
  ClusterTally tally;
  NodeInfo a_info{"a", "host-a", 11, 8, 1024, "1 package", 0, 0};
  NodeInfo b_info{"b", "host-b", 12, 4, 1024, "1 package", 1, 0};
  tally.joined(a_info, NodeAssignment{1, "a", "", 0, 2, 8, 1, 7001, 0, "g", ""});
  tally.joined(b_info, NodeAssignment{2, "b", "", 2, 1, 8, 1, 7001, 0, "g", ""});
  const auto t0 = ClusterTally::Clock::now();
  tally.running(1, t0);
  tally.running(2, t0);
  CHECK(tally.acknowledged(1, 512, 1000, 1, 0));
  CHECK(tally.acknowledged(1, 512, 1000, 3, 2));
  CHECK(tally.acknowledged(2, 256, 500, 0, 4));
  CHECK_FALSE(tally.acknowledged(9, 1, 1, 0, 0));  // no such node: nothing counted
  tally.weights_delivered("a", 3, 100);
  tally.weights_delivered("a", 5, 100);
  tally.round_trip("b", 250);
  CHECK(tally.env_steps() == 1280);
  CHECK(tally.running_nodes() == 2);

  auto lost = tally.lost(1, "remote_link_unreachable");
  REQUIRE(lost);
  CHECK(lost->find("node 'a' (host host-a) lost: remote_link_unreachable") == 0);
  CHECK(lost->find("samplers 0..1 (16 envs)") != std::string::npos);
  CHECK(lost->find("1024 acknowledged env steps") != std::string::npos);
  CHECK_FALSE(tally.lost(1, "again"));  // lost once
  CHECK(tally.running_nodes() == 1);

  // A restarted 'a' rejoins as a new node; its figures start from zero.
  tally.joined(a_info, NodeAssignment{3, "a", "", 3, 2, 8, 1, 7001, 0, "g", ""});
  tally.running(3, t0);
  tally.weights_delivered("a", 9, 100);  // reaches the new one only
  CHECK(tally.acknowledged(3, 512, 1000, 0, 9));
  CHECK(tally.env_steps() == 1792);  // the lost node's acknowledged steps stay counted

  const auto s = tally.status(t0 + std::chrono::seconds(2));
  REQUIRE(s.size() == 3);
  CHECK(s[0].state == "lost");
  CHECK(s[0].env_steps == 1024);
  CHECK(s[0].segments == 2);
  CHECK(s[0].segment_bytes == 2000);
  CHECK(s[0].policy_lag_mean == doctest::Approx(2.0));
  CHECK(s[0].weights_version == 5);
  CHECK(s[0].start_version == 3);
  CHECK(s[0].weight_updates == 2);
  CHECK(s[0].steps_per_second == 0);  // lost: no rate
  CHECK(s[1].control_rtt_us == doctest::Approx(250));
  CHECK(s[1].steps_per_second == doctest::Approx(128));
  CHECK(s[2].name == "a");
  CHECK(s[2].start_version == 9);
  CHECK(s[2].first_segment_version == 9);
  uint64_t sum = 0;
  for (const auto& n : s) sum += n.env_steps;
  CHECK(sum == tally.env_steps());
}

TEST_CASE("the cluster tally reports where each node's weights come from and the version skew") {
  ClusterTally tally;
  CHECK(tally.version_skew() == 0);  // no node
  for (uint32_t id = 1; id <= 3; ++id) {
    const std::string name(1, static_cast<char>('a' + id - 1));
    tally.joined(NodeInfo{name, "h", id, 2, 1024, "", 0, 0},
                 NodeAssignment{id, name, "", id - 1, 1, 8, 1, 7001, 0, "g", ""});
  }
  tally.weights_from(1, "learner");
  tally.weights_from(2, "a");
  tally.weights_delivered("a", 12, 100);
  CHECK(tally.version_skew() == 0);  // one node with weights
  tally.weights_delivered("b", 9, 100);
  CHECK(tally.version_skew() == 3);  // c has no weights yet: not counted
  tally.weights_delivered("c", 4, 100);
  CHECK(tally.version_skew() == 8);
  REQUIRE(tally.lost(3, "remote_link_unreachable"));
  CHECK(tally.version_skew() == 3);  // a lost node's replicas act no more
  tally.weights_delivered("b", 12, 100);
  CHECK(tally.version_skew() == 0);
  const auto s = tally.status();
  CHECK(s[0].weights_from == "learner");
  CHECK(s[1].weights_from == "a");
  CHECK(s[2].weights_from.empty());
}

TEST_CASE(
    "a node hosts the samplers it asks for, else the configured number, else half its cores") {
  ClusterConfig c;
  NodeInfo n;
  n.cores = 16;
  CHECK(node_samplers(c, n) == 8);
  n.cores = 1;
  CHECK(node_samplers(c, n) == 1);
  c.node_samplers = 3;
  CHECK(node_samplers(c, n) == 3);
  n.samplers = 5;
  CHECK(node_samplers(c, n) == 5);
}

TEST_CASE("a joining node's samplers go to the env group furthest below its share") {
  const std::vector<GroupShape> groups = {{"big", 4, 8}, {"small", 1, 4}, {"none", 0, 8}};
  CHECK(next_group(groups, {0, 0, 0}) == 0);  // all empty: the first
  CHECK(next_group(groups, {1, 0, 0}) == 1);  // 1/4 of big, 0/1 of small
  CHECK(next_group(groups, {1, 1, 0}) == 0);  // 1/4 against 1/1
  CHECK(next_group(groups, {4, 1, 0}) == 0);  // both full: the first of equals
  CHECK(next_group(groups, {5, 1, 0}) == 1);  // 5/4 against 1/1
  // A group asking for no samplers gets none, even empty.
  CHECK(next_group({{"none", 0, 8}, {"one", 1, 8}}, {0, 3}) == 1);
}

TEST_CASE("a node takes the run's config from the coordinator and keeps its own cluster settings") {
  Config run;
  run.run.max_env_steps = 1234;
  run.run.logdir = "/coordinator/runs/x";
  run.cluster.listen = "10.0.0.1:7000";
  run.cluster.tls_certificate = "/coordinator/cert.pem";
  run.model.init = "/coordinator/runs/sft";
  NodeAssignment a;
  a.config_text = dump_config(run);
  ClusterConfig own;
  own.connection_timeout_s = 3;
  auto config = node_config(a, own);
  REQUIRE_MESSAGE(config, config.error().message());
  CHECK(config->run.max_env_steps == 1234);
  CHECK(config->run.logdir.empty());  // nodes write nothing into the coordinator's directory
  CHECK(config->cluster.listen.empty());
  CHECK(config->cluster.tls_certificate.empty());
  CHECK(config->cluster.connection_timeout_s == 3);
  CHECK(config->model.init.empty());  // the node gets the learner's weights instead
  a.config_text = "max_env_steps = lots\n";
  auto bad = node_config(a, own);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message().find("the coordinator's config:1") == 0);
}
