// Settings: every key round-trips as text, files and bad values give errors that name them.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <dvla/runtime/config/cluster_address.hpp>
#include <dvla/runtime/config/config.hpp>
#include <dvla/runtime/config/learning_rate_schedule.hpp>

using namespace dvla;

TEST_CASE("every key's default round-trips through its text form") {
  Config config;
  for (const auto& k : config_keys()) {
    CAPTURE(k.key);
    auto text = get_config_value(config, k.key);
    REQUIRE(text);
    CHECK(*text == k.default_value);
    CHECK(set_config_value(config, k.key, *text));
  }
  CHECK(validate(config));
}

TEST_CASE("values are parsed by type and bad ones are refused by name") {
  Config c;
  CHECK(set_config_value(c, "ppo.learning_rate", " 3e-4 "));
  CHECK(c.ppo.learning_rate == doctest::Approx(3e-4));
  CHECK(set_config_value(c, "model.hidden", "32, 16"));
  CHECK(c.model.hidden == std::vector<int64_t>{32, 16});
  CHECK(set_config_value(c, "ppo.normalize_advantages", "false"));
  CHECK_FALSE(c.ppo.normalize_advantages);

  auto bad = set_config_value(c, "samplers", "two");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message() == "config key 'samplers': 'two' is not an integer");
  auto unknown = set_config_value(c, "ppo.lr", "1");
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().message().find("unknown config key 'ppo.lr'") == 0);
  CHECK_FALSE(set_config_value(c, "ppo.gamma", "nan"));
  CHECK_FALSE(set_config_value(c, "max_env_steps", "-5"));
}

TEST_CASE("config files: comments, dumps that load back, errors with file and line") {
  const std::string path = "test_config_file.txt";
  Config c;
  c.run.seed = 42;
  c.graph.samplers = 3;
  { std::ofstream(path) << "# a run\n" << dump_config(c) << "\n  # trailing comment\n"; }
  Config loaded;
  REQUIRE(load_config_file(loaded, path));
  CHECK(dump_config(loaded) == dump_config(c));
  { std::ofstream(path) << "seed = 3\nsamplers: 4\n"; }
  auto bad = load_config_file(loaded, path);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message() == path + ":2: expected 'key = value', got 'samplers: 4'");
  std::remove(path.c_str());
  auto missing = load_config_file(loaded, "no/such/file.txt");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message() == "cannot read config file 'no/such/file.txt'");
}

TEST_CASE("TOML config files: sections join keys, values keep their types, errors name file:line") {
  const std::string path = "test_config_file.toml";
  {
    std::ofstream(path) << "seed = 7\nmode = \"sync\"\n[ppo]\nlearning_rate = 1e-4\nepochs = 3\n"
                           "normalize_advantages = false\n[model]\nhidden = [32, 16]\n"
                           "[tabletop]\nsuite = \"lift\"\n";
  }
  Config c;
  REQUIRE(load_config_file(c, path));
  CHECK(c.run.seed == 7);
  CHECK(c.run.mode == RunMode::sync);
  CHECK(c.ppo.learning_rate == doctest::Approx(1e-4));
  CHECK(c.ppo.epochs == 3);
  CHECK_FALSE(c.ppo.normalize_advantages);
  CHECK(c.model.hidden == std::vector<int64_t>{32, 16});
  CHECK(get_config_value(c, "tabletop.suite").value() == "lift");
  {
    std::ofstream(path) << "ppo.gamma = 0.95  # a dotted key\n[graph]\nsegment_length = 4.5\n";
  }
  auto wrong_type = load_config_file(c, path);
  REQUIRE_FALSE(wrong_type);
  CHECK(wrong_type.error().message() ==
        path + ":3: config key 'graph.segment_length' needs an integer");
  { std::ofstream(path) << "[ppo]\nlearning_rat = 1e-4\n"; }
  auto unknown = load_config_file(c, path);
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().message().find(path + ":2: unknown config key 'ppo.learning_rat'") == 0);
  { std::ofstream(path) << "seed = 1\nmode = async\n"; }  // an unquoted string
  auto syntax = load_config_file(c, path);
  REQUIRE_FALSE(syntax);
  CHECK(syntax.error().message().find(path + ":2: not valid TOML\n") == 0);
  { std::ofstream(path) << "mode = \"fast\"\nsamplers = -1\n"; }
  auto choice = load_config_file(c, path);
  REQUIRE_FALSE(choice);
  CHECK(choice.error().message().find(path + ":1: config key 'mode' needs one of ") == 0);
  // Text that is not UTF-8 (here a Latin-1 byte in a literal string, which toml11 3.7 would read
  // past its buffer on) is refused before parsing, naming line and byte; valid UTF-8 is read.
  { std::ofstream(path) << "seed = 1\n[tabletop]\nsuite = 'st\xf8r'\n"; }
  auto latin1 = load_config_file(c, path);
  REQUIRE_FALSE(latin1);
  CHECK(latin1.error().message() == path + ":3: not valid TOML: byte 31 is not valid UTF-8");
  for (const char* bad : {"a = '\xc0\xaf'", "a = '\xed\xa0\x80'", "a = '\xf4\x90\x80\x80'",
                          "a = '\xe2\x82'"}) {  // overlong, surrogate, above U+10FFFF, cut
    { std::ofstream(path) << bad; }
    auto refused = load_config_file(c, path);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message().find("is not valid UTF-8") != std::string::npos);
  }
  { std::ofstream(path) << "# caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\nseed = 2\n"; }
  REQUIRE(load_config_file(c, path));
  CHECK(c.run.seed == 2);
  std::remove(path.c_str());
}

TEST_CASE("configs/lift-grpo.toml is the measured lift recipe (docs/results.md), key by key") {
  Config from_file;
  REQUIRE(load_config_file(from_file, DVLA_SOURCE_DIR "/configs/lift-grpo.toml"));
  Config from_flags;  // the recipe's command line as measured, flag by flag
  const std::vector<std::pair<std::string, std::string>> measured{
      {"env", "tabletop"},
      {"tabletop.suite", "lift"},
      {"algo", "grpo"},
      {"model.init", "runs/sft32"},
      {"tabletop.image_size", "32"},
      {"tabletop.threads", "1"},
      {"envs_per_sampler", "16"},
      {"grpo.group_size", "8"},
      {"ppo.batch_size", "1024"},
      {"ppo.clip", "0.2"},
      {"ppo.learning_rate", "1e-4"},
      {"ppo.learning_rate_schedule", "200:3e-5"},
      {"eval.every", "25"},
      {"eval.episodes", "300"},
      {"max_env_steps", "1500000"},
      {"logdir", "runs/grpo32"}};
  for (const auto& [key, value] : measured) REQUIRE(set_config_value(from_flags, key, value));
  CHECK(dump_config(from_file) == dump_config(from_flags));
  CHECK(validate(from_file));
}

TEST_CASE("validation names the setting that is out of range") {
  Config c;
  c.ppo.gamma = 1.5;
  CHECK(validate(c).error().message() == "invalid config: ppo.gamma must be in [0, 1]");
  c = Config{};
  c.ppo.importance_weight_cap = -1;
  CHECK(validate(c).error().message() ==
        "invalid config: ppo.importance_weight_cap must not be negative");
  c = Config{};
  c.run.mode = RunMode::sync;
  CHECK(validate(c));
  CHECK(set_config_value(c, "mode", "lockstep").error().message() ==
        "config key 'mode': 'lockstep' is not async or sync");
  CHECK(c.run.mode == RunMode::sync);  // a refused value changes nothing
  c = Config{};
  c.run.algo = "grpo";
  c.grpo.group_size = 3;
  CHECK(validate(c).error().message() ==
        "invalid config: grpo.group_size 3 does not divide envs_per_sampler 8");
  c.grpo.group_size = 4;
  CHECK(set_config_value(c, "grpo.reward", "dense").error().message() ==
        "config key 'grpo.reward': 'dense' is not success or return");
  c = Config{};
  c.run.eval_every = 5;
  c.run.eval_episodes = 0;
  CHECK(validate(c).error().message() ==
        "invalid config: eval.every needs eval.episodes of at least 1");
  c = Config{};
  c.run.stop_eval_success = 0.8;
  CHECK(validate(c).error().message() ==
        "invalid config: stop.eval_success and stop.eval_return need eval.every (evaluations "
        "during the run)");
  c.run.eval_every = 5;
  CHECK(validate(c));
  c.run.stop_eval_success = 80;  // a percentage, not a rate
  CHECK(validate(c).error().message() ==
        "invalid config: stop.eval_success must be a success rate from 0 (never) to 1");
  c = Config{};
  REQUIRE(set_config_value(c, "eval.deferred", "true"));
  CHECK(validate(c).error().message() ==
        "invalid config: eval.deferred needs eval.backlog to keep the versions due until "
        "training ends");
  c.run.eval_backlog = 10;
  CHECK(validate(c));
  c = Config{};
  c.run.eval_every = 5;
  c.run.stop_eval_return = -10;
  CHECK(validate(c).error().message() ==
        "invalid config: stop.eval_return must be 0 (never) or a positive mean return");
  c = Config{};
  REQUIRE(set_config_value(c, "graph.sampling_nice", "20"));
  CHECK(validate(c).error().message() ==
        "invalid config: graph.sampling_nice must be 0..19, not 20");
  c = Config{};
  REQUIRE(set_config_value(c, "ppo.target_kl", "-0.01"));
  CHECK(validate(c).error().message() == "invalid config: ppo.target_kl must be 0 (off) or more");
  c = Config{};
  REQUIRE(set_config_value(c, "ppo.adaptive_kl", "-0.01"));
  CHECK(validate(c).error().message() ==
        "invalid config: ppo.adaptive_kl must be 0 (off) or a finite positive KL");
  c = Config{};
  c.run.checkpoint_keep = 0;
  CHECK(validate(c).error().message() == "invalid config: checkpoint.keep must be at least 1");
  c = Config{};
  CHECK(set_config_value(c, "model.device", "tpu").error().message() ==
        "config key 'model.device': 'tpu' is not cpu or cuda");
  c = Config{};
  c.memory.model_mib = 0;
  CHECK(validate(c).error().message() == "invalid config: memory.model_mib must be at least 1");
  c = Config{};
  REQUIRE(set_config_value(c, "distribution.chunk_mib", "0.25"));
  CHECK(validate(c));
  REQUIRE(set_config_value(c, "distribution.chunk_mib", "512"));  // over one Cap'n Proto Data
  CHECK(validate(c).error().message() ==
        "invalid config: distribution.chunk_mib must be between 1/1024 (1 KiB) and 256");
  c = Config{};
  c.distribution.chunks_in_flight = 0;
  CHECK(validate(c).error().message() ==
        "invalid config: distribution.chunks_in_flight must be at least 1");
  c = Config{};
  REQUIRE(set_config_value(c, "distribution.fanout", "0"));
  CHECK(validate(c).error().message() == "invalid config: distribution.fanout must be at least 1");
  c = Config{};
  REQUIRE(set_config_value(c, "distribution.uplink_mib_s", "-1"));
  CHECK(validate(c).error().message() ==
        "invalid config: distribution.uplink_mib_s must be 0 (no cap) or more");
  REQUIRE(set_config_value(c, "distribution.uplink_mib_s", "12.5"));
  CHECK(validate(c));
  REQUIRE(set_config_value(c, "distribution.wire_dtype", "bfloat16"));
  CHECK(c.distribution.wire_dtype == msg::WeightPrecision::bfloat16);
  auto half = set_config_value(c, "distribution.wire_dtype", "float16");
  REQUIRE_FALSE(half);
  CHECK(half.error().message() ==
        "config key 'distribution.wire_dtype': 'float16' is not float32 or bfloat16");
}

TEST_CASE("sizes that would exhaust the machine or overshoot the budget are refused by name") {
  Config c;
  c.graph.envs_per_sampler = 100000;
  CHECK(validate(c).error().message() ==
        "invalid config: envs_per_sampler must be 1..4096, not 100000");
  c = Config{};
  c.graph.samplers = 5000;
  CHECK(validate(c).error().message() == "invalid config: samplers must be 1..1024, not 5000");
  c = Config{};
  c.graph.inference_replicas = 1000;
  CHECK(validate(c).error().message() ==
        "invalid config: graph.inference_replicas must be 1..256, not 1000");
  c = Config{};
  c.run.max_env_steps = 100;
  c.graph.samplers = 4;
  c.graph.envs_per_sampler = 32;
  CHECK(validate(c).error().message() ==
        "invalid config: samplers x envs_per_sampler (128 env steps per round) exceed "
        "max_env_steps 100");
  c.graph.envs_per_sampler = 25;
  CHECK(validate(c));
  c = Config{};
  c.fault.max_restarts = -1;
  CHECK(validate(c).error().message() ==
        "invalid config: fault.max_restarts must be 0..1000, not -1");
  c = Config{};
  REQUIRE(set_config_value(c, "fault.window_s", "0"));
  CHECK(validate(c).error().message() == "invalid config: fault.window_s must be positive");
}

TEST_CASE("a learning-rate schedule: rates from given points on, bad steps refused by name") {
  auto schedule = LearningRateSchedule::parse(1e-4, "200:3e-5, 1000:1e-5");
  REQUIRE_MESSAGE(schedule, schedule.error().message());
  CHECK(schedule->at(0) == 1e-4);
  CHECK(schedule->at(199) == 1e-4);
  CHECK(schedule->at(200) == 3e-5);
  CHECK(schedule->at(999) == 3e-5);
  CHECK(schedule->at(5000) == 1e-5);
  CHECK(LearningRateSchedule::parse(1e-4, "").value().at(7) == 1e-4);

  auto message = [](const std::string& text) {
    return LearningRateSchedule::parse(1e-4, text).error().message();
  };
  CHECK(message("200") == "learning-rate step '200' is not POINT:RATE");
  CHECK(message("x:1e-5") ==
        "learning-rate step 'x:1e-5' has no point (a non-negative integer) before ':'");
  CHECK(message("10:0") == "learning-rate step '10:0' has no positive rate after ':'");
  CHECK(message("10:fast") == "learning-rate step '10:fast' has no positive rate after ':'");
  CHECK(message("20:1e-5,10:1e-6") ==
        "learning-rate step '10:1e-6' does not come after the step before it (points must "
        "increase)");
  CHECK(message("10:1e-5,,20:1e-6") ==
        "learning-rate schedule '10:1e-5,,20:1e-6' has an empty step");

  Config c;
  REQUIRE(set_config_value(c, "ppo.learning_rate_schedule", "-3:1e-5"));
  auto invalid = validate(c);
  REQUIRE_FALSE(invalid);
  CHECK(invalid.error().message() ==
        "invalid config: ppo.learning_rate_schedule: learning-rate step '-3:1e-5' has no point "
        "(a non-negative integer) before ':'");

  c = Config{};
  REQUIRE(set_config_value(c, "ppo.learning_rate_schedule_unit", "samples"));
  CHECK(validate(c));
  CHECK(set_config_value(c, "ppo.learning_rate_schedule_unit", "steps").error().message() ==
        "config key 'ppo.learning_rate_schedule_unit': 'steps' is not versions or samples");
}

TEST_CASE(
    "cluster settings: HOST:PORT parsed once, TLS all or nothing, sync refused across nodes") {
  auto a = parse_cluster_address("10.0.0.1:7000");
  REQUIRE(a);
  CHECK(a->host == "10.0.0.1");
  CHECK(a->port == 7000);
  CHECK(parse_cluster_address("127.0.0.1:0")->port == 0);
  CHECK(parse_cluster_address("7000").error().message() ==
        "'7000' is not HOST:PORT: there is no ':PORT'");
  CHECK(parse_cluster_address(":7000").error().message() ==
        "':7000' is not HOST:PORT: the host is empty");
  CHECK(parse_cluster_address("h:70000").error().message() ==
        "'h:70000' is not HOST:PORT: the port must be a number from 0 to 65535");
  CHECK(parse_cluster_address("h:7x").error().message() ==
        "'h:7x' is not HOST:PORT: the port must be a number from 0 to 65535");

  Config c;
  c.cluster.listen = "nohost";
  CHECK(validate(c).error().message() ==
        "invalid config: cluster.listen: 'nohost' is not HOST:PORT: there is no ':PORT'");
  c.cluster.listen = "127.0.0.1:7000";
  CHECK(validate(c));
  c.cluster.tls_certificate = "node.pem";
  CHECK(validate(c).error().message().find("cluster.tls.certificate, cluster.tls.key and "
                                           "cluster.tls.cafile go together") != std::string::npos);
  c.cluster.tls_key = "node.key";
  c.cluster.tls_cafile = "ca.pem";
  CHECK(validate(c));
  c.run.mode = RunMode::sync;
  CHECK(validate(c).error().message() ==
        "invalid config: mode sync (lock-step rounds) runs in one process; a cluster runs async");
  c = Config{};
  c.cluster.connection_timeout_s = 0.1;
  CHECK(validate(c).error().message() ==
        "invalid config: cluster.connection_timeout_s must be longer than "
        "cluster.heartbeat_interval_s");
}

TEST_CASE("secure by default: listening beyond loopback needs the TLS keys or cluster.insecure") {
  dvla::Config c;
  c.cluster.listen = "127.0.0.1:7000";
  CHECK(dvla::validate(c));
  c.cluster.listen = "localhost:0";
  CHECK(dvla::validate(c));
  c.cluster.listen = "0.0.0.0:7000";  // every interface: the network too
  const auto refused = dvla::validate(c);
  REQUIRE(!refused);
  CHECK(refused.error().message().find("cluster.tls.cafile") != std::string::npos);
  CHECK(refused.error().message().find("cluster.insecure=true") != std::string::npos);
  REQUIRE(dvla::set_config_value(c, "cluster.insecure", "true"));
  CHECK(dvla::validate(c));
  c.cluster.insecure = false;
  c.cluster.tls_certificate = "c.pem";
  c.cluster.tls_key = "c.key";
  c.cluster.tls_cafile = "ca.pem";
  CHECK(dvla::validate(c));
  CHECK(dvla::is_loopback_host("127.1.2.3"));
  CHECK(dvla::is_loopback_host("::1"));
  CHECK(!dvla::is_loopback_host("128.0.0.1"));
  CHECK(!dvla::is_loopback_host("example.org"));
}

TEST_CASE(
    "cluster.allowed_nodes is a list of names; cluster.rejoin_timeout_s is not negative; a node "
    "needs 3 connections per address") {
  dvla::Config c;
  REQUIRE(dvla::set_config_value(c, "cluster.allowed_nodes", "a, node-2"));
  CHECK(c.cluster.allowed_nodes == std::vector<std::string>{"a", "node-2"});
  CHECK(*dvla::get_config_value(c, "cluster.allowed_nodes") == "a,node-2");
  const auto empty_name = dvla::set_config_value(c, "cluster.allowed_nodes", "a,,b");
  REQUIRE(!empty_name);
  CHECK(empty_name.error().message().find("cluster.allowed_nodes") != std::string::npos);
  REQUIRE(dvla::set_config_value(c, "cluster.allowed_nodes", ""));
  CHECK(c.cluster.allowed_nodes.empty());
  REQUIRE(dvla::load_config_text(
      c, "cluster.allowed_nodes = b\ncluster.tls.check_address = false\n", "text"));
  CHECK(c.cluster.allowed_nodes == std::vector<std::string>{"b"});
  CHECK(!c.cluster.tls_check_address);
  CHECK(dvla::validate(c));
  const std::string path = "test_config_allowed_nodes.toml";
  std::ofstream(path) << "[cluster]\nallowed_nodes = [\"a\", \"b\"]\n";
  REQUIRE(dvla::load_config_file(c, path));
  CHECK(c.cluster.allowed_nodes == std::vector<std::string>{"a", "b"});
  std::ofstream(path) << "[cluster]\nallowed_nodes = [\"a\", 2]\n";
  CHECK(!dvla::load_config_file(c, path));
  std::remove(path.c_str());
  c.cluster.rejoin_timeout_s = -1;
  const auto negative = dvla::validate(c);
  REQUIRE(!negative);
  CHECK(negative.error().message().find("cluster.rejoin_timeout_s") != std::string::npos);
  c.cluster.rejoin_timeout_s = 0;
  REQUIRE(dvla::set_config_value(c, "cluster.max_connections_per_address", "2"));
  CHECK(dvla::validate(c).error().message() ==
        "invalid config: cluster.max_connections_per_address must be at least 3 (a node opens one "
        "connection per plane)");
}
