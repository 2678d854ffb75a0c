// gtest main for tests run under mpiexec: every rank runs every test, rank 0 prints the
// usual report, other ranks print only their failures, and the exit code is the worst rank's.
#include <gtest/gtest.h>
#include <mpi.h>

#include <iostream>

namespace {

class RankFailurePrinter : public testing::EmptyTestEventListener {
public:
    explicit RankFailurePrinter(int rank) : rank_(rank) {}

    void OnTestPartResult(const testing::TestPartResult& result) override
    {
        if (!result.failed()) return;
        std::cerr << "[rank " << rank_ << "] " << (result.file_name() ? result.file_name() : "?") << ":"
                  << result.line_number() << ": " << result.summary() << std::endl;
    }

private:
    int rank_;
};

}  // namespace

int main(int argc, char** argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    testing::InitGoogleTest(&argc, argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0) {
        auto& listeners = testing::UnitTest::GetInstance()->listeners();
        delete listeners.Release(listeners.default_result_printer());
        listeners.Append(new RankFailurePrinter(rank));
    }
    const int local = RUN_ALL_TESTS();
    int worst = 0;
    MPI_Allreduce(&local, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return worst;
}
