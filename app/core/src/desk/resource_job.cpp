#include "attnlab/core/desk/resource_job.hpp"

namespace attnlab {

void ResourceJob::start(std::string key, std::string source, std::string display_name, std::string arch, fs::path work_dir,
                        bool weak_sandbox_allowed) {
    task_.start(std::move(key), [source = std::move(source), display_name = std::move(display_name), arch = std::move(arch),
                                 work_dir = std::move(work_dir), weak_sandbox_allowed](const std::string&, const std::atomic<bool>* cancel) {
        return learner_resource_report(source, display_name, arch, work_dir, cancel, weak_sandbox_allowed);
    });
}

void ResourceJob::poll() {
    std::optional<BackgroundTask<std::string, ResourceReport>::Finished> f = task_.take_finished();
    if (!f || f->result.cancelled) return;  // a cancelled compile never replaces a finished report
    result_ = std::make_shared<const ResourceReport>(std::move(f->result));
    result_key_ = std::move(f->request);
    ++generation_;
}

}  // namespace attnlab
