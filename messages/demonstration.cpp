#include <dvla/messages/demonstration.hpp>

#include <dvla/messages/demonstration.capnp.h>
#include <dvla/messages/codec.hpp>

namespace dvla::msg {

DatasetHeaderFrame build(const DatasetHeader& m) {
  return DatasetHeaderFrame(
      codec::encode<schema::DatasetHeader>(256, [&](schema::DatasetHeader::Builder b) {
        b.setFormat(codec::text(m.format));
        b.setVersion(m.version);
        b.setEnv(codec::text(m.env));
        b.setSuite(codec::text(m.suite));
        b.setSource(codec::text(m.source));
        b.setImageSize(m.image_size);
        b.setFrontCamera(m.front_camera);
        b.setWristCamera(m.wrist_camera);
      }));
}

Expected<DatasetHeader> read(const DatasetHeaderFrame& f) {
  return codec::decode<schema::DatasetHeader>(
      f.bytes(), f.kind, [](schema::DatasetHeader::Reader r) {
        DatasetHeader m;
        m.format = codec::text(r.getFormat());
        m.version = r.getVersion();
        if (m.format != DatasetHeader::format_name)
          codec::malformed("format '" + m.format + "' is not " + DatasetHeader::format_name);
        if (m.version == 1)
          codec::malformed("format version 1 (an older dvla's, without an episode count and "
                           "checksum): record the dataset again");
        if (m.version != DatasetHeader::current_version)
          codec::malformed("version " + std::to_string(m.version) + " is not " +
                           std::to_string(DatasetHeader::current_version));
        m.env = codec::text(r.getEnv());
        m.suite = codec::text(r.getSuite());
        m.source = codec::text(r.getSource());
        m.image_size = r.getImageSize();
        m.front_camera = r.getFrontCamera();
        m.wrist_camera = r.getWristCamera();
        return m;
      });
}

DatasetFooterFrame build(const DatasetFooter& m) {
  return DatasetFooterFrame(
      codec::encode<schema::DatasetFooter>(64, [&](schema::DatasetFooter::Builder b) {
        b.setMagic(DatasetFooter::magic_text);
        b.setEpisodes(m.episodes);
        b.setChecksum(m.checksum);
      }));
}

Expected<DatasetFooter> read(const DatasetFooterFrame& f) {
  return codec::decode<schema::DatasetFooter>(
      f.bytes(), f.kind, [](schema::DatasetFooter::Reader r) {
        if (codec::text(r.getMagic()) != DatasetFooter::magic_text)
          codec::malformed("it is not a dataset footer");
        DatasetFooter m;
        m.episodes = r.getEpisodes();
        m.checksum = r.getChecksum();
        return m;
      });
}

DemonstrationFrame build(const Demonstration& m) {
  const size_t size = codec::observation_bytes(m.observations) + codec::tensor_bytes(m.actions) +
                      m.task.size() + m.instruction.size();
  return DemonstrationFrame(
      codec::encode<schema::Demonstration>(size, [&](schema::Demonstration::Builder b) {
        b.setTask(codec::text(m.task));
        b.setInstruction(codec::text(m.instruction));
        b.setLayoutSeed(m.layout_seed);
        codec::write_observations(b.initObservations(), m.observations);
        codec::write_tensor(b.initActions(), m.actions);
        b.setSuccess(m.success);
      }));
}

Expected<Demonstration> read(const DemonstrationFrame& f) {
  return codec::decode<schema::Demonstration>(
      f.bytes(), f.kind, [](schema::Demonstration::Reader r) {
        Demonstration m;
        m.task = codec::text(r.getTask());
        m.instruction = codec::text(r.getInstruction());
        m.layout_seed = r.getLayoutSeed();
        m.observations =
            codec::read_observations(r.hasObservations(), r.getObservations(), "observations", 1);
        m.actions = codec::read_tensor<float>(r.hasActions(), r.getActions(), "actions", 2);
        codec::require_dim(m.actions, 0, m.observations.state.dim(0), "actions",
                           "the steps of 'observations'");
        codec::require_finite(m.actions, "actions");
        m.success = r.getSuccess();
        return m;
      });
}

}  // namespace dvla::msg
