#pragma once
// A MuJoCo model compiled from XML text held in memory (staged in MuJoCo's virtual file system,
// so an env's model ships inside the library and needs no file at run time).
#include <memory>
#include <string>

struct mjModel_;

namespace dvla::envs {

struct ModelDeleter {
  void operator()(mjModel_* model) const;
};
using ModelPtr = std::unique_ptr<mjModel_, ModelDeleter>;

// The model of `xml`; `name` names it in errors. Throws MujocoError with MuJoCo's message when it
// does not compile.
ModelPtr load_xml_model(const std::string& name, const char* xml);

}  // namespace dvla::envs
