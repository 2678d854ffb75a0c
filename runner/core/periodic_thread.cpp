#include "runner/core/periodic_thread.hpp"

namespace shardrun::core {

PeriodicThread::PeriodicThread(std::chrono::milliseconds period, std::function<bool()> tick)
    : thread_([this, period, tick = std::move(tick)] {
          std::unique_lock lock(mutex_);
          while (!stopping_) {
              lock.unlock();
              const bool again = tick();
              lock.lock();
              if (!again) return;
              wake_.wait_for(lock, period, [this] { return stopping_; });
          }
      })
{
}

PeriodicThread::~PeriodicThread() { stop(); }

void PeriodicThread::stop()
{
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

}  // namespace shardrun::core
