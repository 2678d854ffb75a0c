#include "runner/run/device_choice.hpp"

#include "runner/errors.hpp"

namespace shardrun::run {

env::DeviceBinding choose_device(const job::JobSpec& spec, const env::DeviceBinding& detected)
{
    switch (spec.device) {
    case job::DevicePreference::cpu: {
        env::DeviceBinding cpu;
        cpu.reason = "device: cpu in the job";
        return cpu;
    }
    case job::DevicePreference::cuda:
        if (!detected.cuda) {
            throw JobFileError(spec.file + ": device: cuda, but this rank has no CUDA device (" + detected.reason +
                               "); use device: auto or cpu");
        }
        return detected;
    case job::DevicePreference::automatic: break;
    }
    return detected;
}

}  // namespace shardrun::run
