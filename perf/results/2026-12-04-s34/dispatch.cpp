// What a launch costs on Kokkos 3.4's OpenMP backend, empty bodies, per launch (us):
// the fixed cost behind each of the host step's passes (perf/results/2026-12-04-s34-h200.md).
//   g++ -O2 -fopenmp -std=c++17 -I$K/include dispatch.cpp -L$K/lib -lkokkoscore -ldl -o dispatch
#include <Kokkos_Core.hpp>
#include <omp.h>

#include <chrono>
#include <cstdio>

using E = Kokkos::OpenMP;
using Clock = std::chrono::steady_clock;

template <class F>
double per_call_us(int n, F&& f) {
  f();
  const auto t0 = Clock::now();
  for (int r = 0; r < n; ++r) f();
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / n;
}

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    const int n = 4000, nt = E().concurrency();
    Kokkos::View<double*, E::memory_space> v("v", 1 << 16);
    Kokkos::View<int, E::memory_space> counter("counter");
    std::printf("threads %d\n", nt);
    for (int round = 0; round < 2; ++round) {
      std::printf("round %d\n", round);
      std::printf("  omp parallel, empty                         %7.2f\n",
                  per_call_us(n, [&] {
#pragma omp parallel
                    { v(omp_get_thread_num()) += 1; }
                  }));
      std::printf("  RangePolicy(0, 4096) for                    %7.2f\n",
                  per_call_us(n, [&] {
                    Kokkos::parallel_for(Kokkos::RangePolicy<E>(0, 4096), [=](int i) { v(i) += 1; });
                  }));
      for (int league : {1000, 4000}) {
        using P = Kokkos::TeamPolicy<E, Kokkos::Schedule<Kokkos::Dynamic>>;
        std::printf("  TeamPolicy<Dynamic>(%d, 1) for, 64 KB scr %7.2f\n", league,
                    per_call_us(n, [&] {
                      Kokkos::parallel_for(P(league, 1).set_scratch_size(0, Kokkos::PerTeam(65536)),
                                           [=](const P::member_type& m) { v(m.league_rank()) += 1; });
                    }));
        std::printf("  TeamPolicy<Dynamic>(%d, 1) reduce max     %7.2f\n", league,
                    per_call_us(n, [&] {
                      double r = 0;
                      Kokkos::parallel_reduce(P(league, 1).set_scratch_size(0, Kokkos::PerTeam(65536)),
                                              [=](const P::member_type& m, double& l) {
                                                l = l > v(m.league_rank()) ? l : v(m.league_rank());
                                              },
                                              Kokkos::Max<double>(r));
                    }));
        std::printf("  TeamPolicy<Static>(%d, 1) for              %7.2f\n", league,
                    per_call_us(n, [&] {
                      Kokkos::parallel_for(Kokkos::TeamPolicy<E>(league, 1),
                                           [=](const Kokkos::TeamPolicy<E>::member_type& m) { v(m.league_rank()) += 1; });
                    }));
      }
      // One team of all threads: the launch, then a barrier's cost, then a team reduce's.
      using T = Kokkos::TeamPolicy<E>;
      for (int barriers : {0, 10}) {
        std::printf("  TeamPolicy(1, %d), %2d team_barrier          %7.2f\n", nt, barriers,
                    per_call_us(n, [&] {
                      Kokkos::parallel_for(T(1, nt).set_scratch_size(0, Kokkos::PerThread(65536)),
                                           [=](const T::member_type& m) {
                                             for (int b = 0; b < barriers; ++b) {
                                               v(m.team_rank() + 64 * b) += 1;
                                               m.team_barrier();
                                             }
                                           });
                    }));
      }
      std::printf("  TeamPolicy(1, %d), 10 team_reduce max      %7.2f\n", nt,
                  per_call_us(n, [&] {
                    Kokkos::parallel_for(T(1, nt), [=](const T::member_type& m) {
                      double x = v(m.team_rank());
                      for (int b = 0; b < 10; ++b) {
                        double r = x;
                        m.team_reduce(Kokkos::Max<double>(r));
                        x = r + 1;
                      }
                      v(m.team_rank()) = x;
                    });
                  }));
      std::printf("  TeamPolicy(1, %d), 4000 atomic takes        %7.2f\n", nt,
                  per_call_us(n / 4, [&] {
                    Kokkos::deep_copy(counter, 0);
                    Kokkos::parallel_for(T(1, nt), [=](const T::member_type& m) {
                      for (int k; (k = Kokkos::atomic_fetch_add(&counter(), 1)) < 4000;) v(k) += 1;
                    });
                  }));
    }
  }
  Kokkos::finalize();
}
