#include <dvla/messages/metrics.hpp>

#include <dvla/messages/metrics.capnp.h>
#include <dvla/messages/codec.hpp>

namespace dvla::msg {
namespace {

using Schema = schema::Metrics;

void require_finite(double v, const char* field) {
  if (!std::isfinite(v)) codec::malformed(std::string("field '") + field + "' is not finite");
}

void require_rate(double v, const char* field) {
  if (!(v >= 0 && v <= 1)) codec::malformed(std::string("field '") + field + "' is not in [0, 1]");
}

void write(Schema::Sampling::Builder b, const SamplingReport& r) {
  b.setGroup(r.group);
  b.setEnvSteps(r.env_steps);
  b.setSegmentsDropped(r.segments_dropped);
  const auto n = static_cast<unsigned>(r.episode_returns.size());
  auto returns = b.initEpisodeReturns(n);
  auto successes = b.initEpisodeSuccesses(n);
  for (unsigned i = 0; i < n; ++i) {
    returns.set(i, r.episode_returns[i]);
    successes.set(i, i < r.episode_successes.size() && r.episode_successes[i]);
  }
}

SamplingReport read(Schema::Sampling::Reader r) {
  SamplingReport out;
  out.group = r.getGroup();
  out.env_steps = r.getEnvSteps();
  out.segments_dropped = r.getSegmentsDropped();
  codec::require(r.getEpisodeReturns().size() == r.getEpisodeSuccesses().size(),
                 "fields 'episodeReturns' and 'episodeSuccesses' differ in length");
  for (double v : r.getEpisodeReturns()) {
    require_finite(v, "episodeReturns");
    out.episode_returns.push_back(v);
  }
  for (bool s : r.getEpisodeSuccesses()) out.episode_successes.push_back(s);
  return out;
}

void write(Schema::Learning::Builder b, const LearningReport& r) {
  const auto& s = r.stats;
  b.setVersion(r.version);
  b.setSamples(s.samples);
  b.setPolicyLoss(s.policy_loss);
  b.setValueLoss(s.value_loss);
  b.setEntropy(s.entropy);
  b.setApproxKl(s.approx_kl);
  b.setClipFraction(s.clip_fraction);
  b.setReferenceKl(s.reference_kl);
  b.setLearningRate(s.learning_rate);
  b.setImportanceWeightMax(s.importance_weight_max);
  b.setImportanceWeightEss(s.importance_weight_ess);
  auto lag = b.initPolicyLag(static_cast<unsigned>(r.policy_lag.size()));
  for (unsigned i = 0; i < r.policy_lag.size(); ++i) lag.set(i, r.policy_lag[i]);
}

LearningReport read(Schema::Learning::Reader r) {
  LearningReport out;
  auto& s = out.stats;
  out.version = r.getVersion();
  s.samples = r.getSamples();
  const std::pair<double*, std::pair<double, const char*>> fields[] = {
      {&s.policy_loss, {r.getPolicyLoss(), "policyLoss"}},
      {&s.value_loss, {r.getValueLoss(), "valueLoss"}},
      {&s.entropy, {r.getEntropy(), "entropy"}},
      {&s.approx_kl, {r.getApproxKl(), "approxKl"}},
      {&s.clip_fraction, {r.getClipFraction(), "clipFraction"}},
      {&s.reference_kl, {r.getReferenceKl(), "referenceKl"}},
      {&s.learning_rate, {r.getLearningRate(), "learningRate"}},
      {&s.importance_weight_max, {r.getImportanceWeightMax(), "importanceWeightMax"}},
      {&s.importance_weight_ess, {r.getImportanceWeightEss(), "importanceWeightEss"}}};
  for (const auto& [field, value] : fields) {
    require_finite(value.first, value.second);
    *field = value.first;
  }
  require_rate(s.clip_fraction, "clipFraction");
  for (uint64_t n : r.getPolicyLag()) out.policy_lag.push_back(n);
  return out;
}

void write(Schema::Evaluation::Builder b, const EvaluationReport& r) {
  b.setVersion(r.version);
  b.setEpisodes(r.episodes);
  b.setSuccessRate(r.success_rate);
  b.setMeanReturn(r.mean_return);
  b.setMeanLength(r.mean_length);
  auto families = b.initFamilies(static_cast<unsigned>(r.success_per_family.size()));
  unsigned i = 0;
  for (const auto& [name, rate] : r.success_per_family) {
    families[i].setName(codec::text(name));
    families[i++].setSuccessRate(rate);
  }
  b.setVideo(codec::text(r.video));
  b.setVideoError(codec::text(r.video_error));
}

EvaluationReport read(Schema::Evaluation::Reader r) {
  EvaluationReport out;
  out.version = r.getVersion();
  out.episodes = r.getEpisodes();
  out.success_rate = r.getSuccessRate();
  out.mean_return = r.getMeanReturn();
  out.mean_length = r.getMeanLength();
  require_rate(out.success_rate, "successRate");
  require_finite(out.mean_return, "meanReturn");
  require_finite(out.mean_length, "meanLength");
  for (auto f : r.getFamilies()) {
    require_rate(f.getSuccessRate(), "families.successRate");
    out.success_per_family[codec::text(f.getName())] = f.getSuccessRate();
  }
  out.video = codec::text(r.getVideo());
  out.video_error = codec::text(r.getVideoError());
  return out;
}

// The bytes a report needs beyond the fixed part, to size the message's first segment.
size_t size_hint(const msg::Metrics& m) {
  if (auto* s = std::get_if<SamplingReport>(&m.report)) return 16 * s->episode_returns.size();
  if (auto* l = std::get_if<LearningReport>(&m.report)) return 8 * l->policy_lag.size();
  if (auto* e = std::get_if<EvaluationReport>(&m.report))
    return 48 * e->success_per_family.size() + e->video.size() + e->video_error.size();
  return std::get<RejectionReport>(m.report).reason.size();
}

}  // namespace

MetricsFrame build(const Metrics& m) {
  return MetricsFrame(codec::encode<Schema>(size_hint(m) + 256, [&](Schema::Builder b) {
    b.setSource(codec::text(m.source));
    b.setTimestampNs(m.timestamp_ns);
    std::visit(
        [&](const auto& report) {
          using T = std::decay_t<decltype(report)>;
          if constexpr (std::is_same_v<T, SamplingReport>)
            write(b.initSampling(), report);
          else if constexpr (std::is_same_v<T, LearningReport>)
            write(b.initLearning(), report);
          else if constexpr (std::is_same_v<T, EvaluationReport>)
            write(b.initEvaluation(), report);
          else
            b.initRejection().setReason(codec::text(report.reason));
        },
        m.report);
  }));
}

Expected<Metrics> read(const MetricsFrame& f) {
  return codec::decode<Schema>(f.bytes(), f.kind, [](Schema::Reader r) {
    msg::Metrics m;
    m.source = codec::text(r.getSource());
    m.timestamp_ns = r.getTimestampNs();
    switch (r.which()) {
      case Schema::SAMPLING:
        m.report = read(r.getSampling());
        break;
      case Schema::LEARNING:
        m.report = read(r.getLearning());
        break;
      case Schema::EVALUATION:
        m.report = read(r.getEvaluation());
        break;
      case Schema::REJECTION:
        m.report = RejectionReport{codec::text(r.getRejection().getReason())};
        break;
      default:
        codec::malformed("the report is of a kind this build does not know");
    }
    return m;
  });
}

}  // namespace dvla::msg
