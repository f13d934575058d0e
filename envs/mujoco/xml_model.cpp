#include <dvla/envs/mujoco/xml_model.hpp>

#include <mujoco/mujoco.h>

#include <cstring>

#include <dvla/envs/mujoco/mujoco_errors.hpp>

namespace dvla::envs {
namespace {

// mjVFS is large (hundreds of KiB): on the heap, released with its files however we leave.
struct StagedFiles {
  StagedFiles() : vfs(std::make_unique<mjVFS>()) { mj_defaultVFS(vfs.get()); }
  ~StagedFiles() { mj_deleteVFS(vfs.get()); }
  StagedFiles(const StagedFiles&) = delete;
  StagedFiles& operator=(const StagedFiles&) = delete;
  std::unique_ptr<mjVFS> vfs;
};

}  // namespace

void ModelDeleter::operator()(mjModel_* model) const { mj_deleteModel(model); }

ModelPtr load_xml_model(const std::string& name, const char* xml) {
  install_mujoco_error_hooks();
  StagedFiles files;
  const std::string file = name + ".xml";
  const int size = static_cast<int>(std::strlen(xml));
  if (mj_makeEmptyFileVFS(files.vfs.get(), file.c_str(), size) != 0)
    throw MujocoError("cannot stage the " + name + " model in MuJoCo's virtual file system");
  std::memcpy(files.vfs->filedata[files.vfs->nfile - 1], xml, static_cast<size_t>(size));
  char error[1000] = "";
  ModelPtr m(mj_loadXML(file.c_str(), files.vfs.get(), error, sizeof(error)));
  if (!m) throw MujocoError(name + " model does not load: " + error);
  return m;
}

}  // namespace dvla::envs
