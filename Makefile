# tracedb: build, test, bench, install.
#   make            the tracedb binary, libtracedb (static and shared), tracedb.pc, the man pages -> build/
#   make demo       build, import the bundled PyTorch sample and print its summary (and the man pages)
#   make test       the whole suite, built with AddressSanitizer + UndefinedBehaviorSanitizer
#   make bench      import/summary speed and memory against baselines, side by side
#   make install PREFIX=/usr/local   (DESTDIR= too): binary, libraries, header, tracedb.pc, man pages
#                   tracedb(1) and tracedb-schema(7), bash completion, the Python package
#   make deps       install the Debian packages the build needs (as root)
#   make mpi        build/tracedb-mpi: import spread over an MPI job's processes (needs Open MPI)

CC      ?= cc
PREFIX  ?= /usr/local
CSTD     = -std=c11 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L
WARN     = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CFLAGS  ?= -O2 -g
# one folder per layer (docs/layout.md); sources include headers by name
SRC_DIRS = util recorder/store recorder/import recorder/live analyzer/report analyzer/export analyzer/cli
INCS     = -Iinclude $(addprefix -I,$(SRC_DIRS))
ALL_CFLAGS = $(CSTD) $(WARN) $(CFLAGS) -fPIC $(INCS)
LIBS     = -lsqlite3 -lyajl -lsimdjson -lcjson -lcsv -lz -lm -lpthread -lstdc++
# one C++ file: simdjson's On-Demand API behind a C interface (recorder/import/json_fast.cpp)
CXX     ?= g++
CXX_SRC  = recorder/import/json_fast.cpp
ALL_CXXFLAGS = -std=c++17 -Wall -Wextra -Werror -fno-exceptions -fno-rtti -DSIMDJSON_EXCEPTIONS=0 $(CFLAGS) -fPIC $(INCS)
# CUDA (CUPTI headers for the activity translation; NVTX headers for the injection library) at
# /usr/local/cuda, or CUDA_HOME; without it tracedb builds without them, and says so.
CUDA_HOME ?= /usr/local/cuda
HAVE_CUPTI := $(shell test -f $(CUDA_HOME)/include/cupti_activity.h && echo 1)
ifeq ($(HAVE_CUPTI),1)
CUPTI_SRC = recorder/live/cupti_translate.c
CUPTI_INC = -I$(CUDA_HOME)/include
else
$(info tracedb: no CUDA toolkit at $(CUDA_HOME) (set CUDA_HOME): building without CUPTI translation and NVTX capture)
endif
SAN      = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

SQL      = $(wildcard schema/*.sql) $(wildcard queries/*.sql)
SQL_PARTS = $(wildcard queries/parts/*.sql)
ASSETS   = analyzer/export/report.html analyzer/export/report_base.js analyzer/export/report_timeline.js analyzer/export/report_charts.js analyzer/export/report_diff.js
LIB_SRC  = recorder/store/db_guard.c recorder/store/output_claim.c recorder/store/stmt_cache.c recorder/store/ingest.c recorder/store/ingest_sql.c recorder/store/ingest_names.c recorder/store/ingest_events.c recorder/store/ingest_trace.c recorder/store/ingest_sweep.c recorder/store/ingest_checks.c recorder/store/nesting.c recorder/store/spill_sort.c recorder/store/paged.c recorder/store/spill_map.c recorder/store/stream_nest.c recorder/store/frame_log.c recorder/store/device_time.c recorder/store/row_writer.c recorder/store/self_fixes.c recorder/store/event_pack.c util/strmap.c util/jsonbuf.c util/term_text.c util/timeparse.c util/phase_clock.c util/bigmem.c util/time_range.c util/kernel_type.c \
           recorder/import/chrome_import.c recorder/import/chrome_parse.c recorder/import/chrome_feed.c recorder/import/chrome_events.c recorder/import/chrome_fast.c recorder/import/chrome_resync.c recorder/import/seed_formats.c recorder/import/furiosa_records.c recorder/import/open_ranges.c recorder/import/read_ahead.c recorder/import/import.c recorder/import/trace_files.c recorder/import/trace_cache.c recorder/import/merge.c recorder/import/db_copy.c recorder/live/recording.c recorder/live/recording_steps.c recorder/live/recording_writer.c recorder/live/recording_clock.c recorder/live/recording_convert.c recorder/live/stage_convert.c recorder/live/call_nest.c recorder/live/finish.c \
           analyzer/report/pack_source.c analyzer/report/ops_take.c analyzer/report/ops_pack.c analyzer/report/render.c analyzer/report/render_table.c analyzer/report/render_cell.c analyzer/report/report.c analyzer/report/mann_whitney.c analyzer/report/diff_gate.c analyzer/report/sqlfuncs.c analyzer/report/hta_round.c analyzer/report/type_union.c analyzer/report/type_sweep.c analyzer/report/flops.c analyzer/report/scope.c analyzer/report/queue_sweep.c analyzer/report/sweep_group.c analyzer/report/chain_sums.c analyzer/report/op_stacks.c analyzer/report/idle_sweep.c analyzer/report/launch_sweep.c analyzer/report/kernel_sweep.c analyzer/report/pattern_sweep.c analyzer/report/pattern_arrays.c analyzer/report/pattern_read.c analyzer/report/pattern_depth.c analyzer/report/pattern_group.c analyzer/report/cp_graph.c analyzer/report/cp_order.c analyzer/report/cp_nodes.c analyzer/report/cp_stacks.c analyzer/report/cp_kernels.c analyzer/report/cp_path.c analyzer/report/critical_path.c analyzer/report/cp_ids.c analyzer/report/cp_read.c analyzer/report/cp_rows.c analyzer/report/device_sweep.c analyzer/report/memory_sweep.c analyzer/report/ops_sweep.c analyzer/report/ops_keys.c analyzer/report/ops_parents.c analyzer/report/ops_read.c analyzer/report/ops_write.c analyzer/report/ops_merge.c analyzer/report/ops_shards.c analyzer/report/step_index.c analyzer/report/shards.c \
           analyzer/export/chrome_export.c analyzer/export/html_report.c analyzer/export/html_timeline.c
CLI_SRC  = analyzer/cli/main.c analyzer/cli/dispatch.c analyzer/cli/commands.c analyzer/cli/cmd_api.c analyzer/cli/cmd_device.c analyzer/cli/cmd_diff.c analyzer/cli/cmd_export.c \
           analyzer/cli/cmd_kernels.c analyzer/cli/cmd_latency.c analyzer/cli/cmd_ranks.c analyzer/cli/cmd_merge.c analyzer/cli/cmd_record.c analyzer/cli/cmd_finish.c analyzer/cli/cmd_report.c analyzer/cli/cmd_overlap.c analyzer/cli/cmd_idle.c analyzer/cli/cmd_launches.c analyzer/cli/cmd_queue.c analyzer/cli/cmd_critical_path.c \
           analyzer/cli/cmd_memops.c analyzer/cli/cmd_memory.c analyzer/cli/cmd_ops.c analyzer/cli/cmd_summary.c analyzer/cli/cmd_sql.c \
           analyzer/cli/cmd_import.c analyzer/cli/options.c analyzer/cli/report_options.c analyzer/cli/report_columns.c analyzer/cli/sql_reports.c
# libtracedb.so's SQLite extension entry point (docs/sql.md), linked into the shared library alone, with
# the commands (but main.c): the reports' table functions run them
EXT_SRC  = analyzer/cli/sql_extension.c
UNIT_SRC = $(filter-out $(if $(HAVE_CUPTI),,tests/unit/test_cupti.c tests/unit/test_record.c tests/unit/test_record_options.c),$(wildcard tests/unit/*.c))
HDRS     = $(wildcard include/*.h $(addsuffix /*.h,$(SRC_DIRS)))

.PHONY: all build demo test check test-run clang-check valgrind bench fuzz fuzz-long fuzzers install deps clean gpu-bundle gpu-bundle-files gpu-check
all:
	@sh tools/deps.sh build
	@$(MAKE) --no-print-directory build

build: build/tracedb build/tracedb.1 build/tracedb-schema.7 build/libtracedb.a build/libtracedb.so build/tracedb.pc $(if $(HAVE_CUPTI),build/libtracedb_inject.so)

deps:
	@sh tools/deps.sh build

build/embed: tools/embed.c util/kinds.h
	@mkdir -p build
	$(CC) -O1 -Iutil -o $@ $<

build/embedded.c: build/embed $(SQL) $(SQL_PARTS) $(ASSETS)
	build/embed $@ $(SQL) $(ASSETS)

# --- release build
build/obj/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(CUPTI_INC) -c -o $@ $<

build/obj/embedded.o: build/embedded.c util/embedded.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

build/obj/%.o: %.cpp $(HDRS)
	@mkdir -p $(dir $@)
	$(CXX) $(ALL_CXXFLAGS) -c -o $@ $<

LIB_OBJ = $(LIB_SRC:%.c=build/obj/%.o) $(CXX_SRC:%.cpp=build/obj/%.o) $(CUPTI_SRC:%.c=build/obj/%.o) build/obj/embedded.o
CLI_OBJ = $(CLI_SRC:%.c=build/obj/%.o)

build/libtracedb.a: $(LIB_OBJ)
	ar rcs $@ $^

EXT_OBJ = $(EXT_SRC:%.c=build/obj/%.o)
SO_CLI_OBJ = $(filter-out build/obj/analyzer/cli/main.o,$(CLI_OBJ))
build/libtracedb.so: $(LIB_OBJ) $(EXT_OBJ) $(SO_CLI_OBJ) include/libtracedb.map
	$(CC) -shared -o $@ $(LIB_OBJ) $(EXT_OBJ) $(SO_CLI_OBJ) $(LIBS) -Wl,--version-script=include/libtracedb.map

# NVTX capture: one shared object, exporting only the injection entry points
NVTX_INC  = -I$(CUDA_HOME)/include
build/obj/recorder/live/nvtx_inject.o: recorder/live/nvtx_inject.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(NVTX_INC) -c -o $@ $<

build/test/obj/recorder/live/nvtx_inject.o: recorder/live/nvtx_inject.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SAN) $(NVTX_INC) -c -o $@ $<

ifeq ($(HAVE_CUPTI),1)
INJECT_OBJ  = build/obj/recorder/live/cupti_inject.o
INJECT_LIBS = -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcupti
endif
# the injection library links what recording needs (the store and the live recorder), not the importers
# nor the analyzer; --no-undefined keeps it honest
RECORDING_SRC = recorder/store/db_guard.c recorder/store/output_claim.c recorder/store/stmt_cache.c recorder/store/ingest.c recorder/store/ingest_sql.c recorder/store/ingest_names.c recorder/store/ingest_events.c recorder/store/ingest_trace.c recorder/store/ingest_sweep.c recorder/store/ingest_checks.c recorder/store/nesting.c recorder/store/spill_sort.c recorder/store/paged.c recorder/store/spill_map.c recorder/store/stream_nest.c recorder/store/frame_log.c \
                recorder/store/device_time.c recorder/store/row_writer.c recorder/store/self_fixes.c recorder/store/event_pack.c util/strmap.c util/jsonbuf.c util/timeparse.c util/phase_clock.c util/bigmem.c util/kernel_type.c \
                recorder/live/recording.c recorder/live/recording_steps.c recorder/live/recording_writer.c recorder/live/recording_clock.c recorder/live/recording_convert.c recorder/live/stage_convert.c recorder/live/call_nest.c
RECORDING_OBJ = $(RECORDING_SRC:%.c=build/obj/%.o) $(CUPTI_SRC:%.c=build/obj/%.o) build/obj/embedded.o
build/libtracedb_inject.so: build/obj/recorder/live/nvtx_inject.o $(INJECT_OBJ) $(RECORDING_OBJ)
	$(CC) -shared -o $@ $^ $(LIBS) $(INJECT_LIBS) -Wl,--version-script=recorder/live/inject.map -Wl,--no-undefined

build/nvtx_sample: samples/nvtx_sample.c
	$(CC) $(CSTD) $(WARN) -O1 $(NVTX_INC) -o $@ $< -lpthread -ldl

build/nvtx_steps: tests/nvtx_steps.c
	$(CC) $(CSTD) $(WARN) -O1 $(NVTX_INC) -o $@ $< -lpthread -ldl

build/inject_probe: tests/inject_probe.c
	$(CC) $(CSTD) $(WARN) -o $@ $< -ldl

build/tracedb: $(CLI_OBJ) build/libtracedb.a
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJ) build/libtracedb.a $(LIBS)

# the man page: the same option tables as --help (tools/manpage.sh runs each command's --help), and docs/tracedb.1.md
build/tracedb.1: build/tracedb tools/manpage.sh docs/tracedb.1.md
	sh tools/manpage.sh build/tracedb > $@.tmp && mv $@.tmp $@

# tracedb-schema(7): every table, view and column of a new database, described by schema/'s comments
build/tracedb-schema.7: build/tracedb tools/schemapage.sh $(wildcard schema/*.sql)
	sh tools/schemapage.sh build/tracedb $(wildcard schema/*.sql) > $@.tmp && mv $@.tmp $@

build/tracedb.pc: Makefile
	@mkdir -p build
	printf 'prefix=%s\nlibdir=$${prefix}/lib\nincludedir=$${prefix}/include\n\nName: tracedb\nDescription: trace analysis for ML workloads over SQLite\nVersion: 0.1.0\nLibs: -L$${libdir} -ltracedb\nLibs.private: %s\nCflags: -I$${includedir}\n' \
	  '$(PREFIX)' '$(LIBS)' > $@

demo:
	@sh tools/deps.sh build
	@$(MAKE) --no-print-directory build/tracedb build/tracedb.1 build/tracedb-schema.7
	@rm -f build/demo.db
	build/tracedb import samples/resnet18_inference.json.gz -o build/demo.db
	build/tracedb summary build/demo.db
	build/tracedb report build/demo.db -o build/demo-report.html --force
	@echo "open build/demo-report.html in a browser: timeline, top operators, steps, as one offline page;"
	@echo "man -l build/tracedb.1: every command; man -l build/tracedb-schema.7: every table and column"

# --- MPI (#13): build/tracedb-mpi, the same commands linked with Open MPI (mpicc's flags, so the test
# build keeps its sanitizers); the plain tracedb never links MPI. `make mpi`; tools/deps.sh mpi installs it.
MPICC    ?= mpicc
HAVE_MPI := $(shell command -v $(MPICC) >/dev/null 2>&1 && echo 1)
MPI_CFLAGS = $(if $(HAVE_MPI),$(shell $(MPICC) --showme:compile))
MPI_LIBS   = $(if $(HAVE_MPI),$(shell $(MPICC) --showme:link))
MPI_SRC    = analyzer/cli/mpi_main.c analyzer/cli/mpi_import.c analyzer/cli/mpi_reduce.c
build/mpi/obj/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(MPI_CFLAGS) -c -o $@ $<
build/mpi/obj/tracedb_main.o: analyzer/cli/main.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DTDB_NO_MAIN -c -o $@ $<
build/tracedb-mpi: $(MPI_SRC:%.c=build/mpi/obj/%.o) build/mpi/obj/tracedb_main.o $(filter-out build/obj/analyzer/cli/main.o,$(CLI_OBJ)) build/libtracedb.a
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS) $(MPI_LIBS)
mpi:
ifeq ($(HAVE_MPI),1)
	@$(MAKE) --no-print-directory build/tracedb-mpi
else
	@echo "make mpi: needs mpicc (Open MPI): sh tools/deps.sh mpi installs it" >&2; exit 1
endif

# --- tests: everything built again with sanitizers into build/test
build/test/obj/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SAN) $(CUPTI_INC) -c -o $@ $<

build/test/obj/embedded.o: build/embedded.c util/embedded.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SAN) -c -o $@ $<

build/test/obj/%.o: %.cpp $(HDRS)
	@mkdir -p $(dir $@)
	$(CXX) $(ALL_CXXFLAGS) $(SAN) -c -o $@ $<

TLIB_OBJ = $(LIB_SRC:%.c=build/test/obj/%.o) $(CXX_SRC:%.cpp=build/test/obj/%.o) $(CUPTI_SRC:%.c=build/test/obj/%.o) build/test/obj/embedded.o
TCLI_OBJ = $(CLI_SRC:%.c=build/test/obj/%.o)

# tracedb-mpi with the sanitizers, for the tests (the MPI block above has the release one)
build/test/mpi/obj/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SAN) $(MPI_CFLAGS) -c -o $@ $<
build/test/mpi/obj/tracedb_main.o: analyzer/cli/main.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SAN) -DTDB_NO_MAIN -c -o $@ $<
build/test/tracedb-mpi: $(MPI_SRC:%.c=build/test/mpi/obj/%.o) build/test/mpi/obj/tracedb_main.o $(filter-out build/test/obj/analyzer/cli/main.o,$(TCLI_OBJ)) $(TLIB_OBJ)
	$(CC) $(SAN) -o $@ $^ $(LIBS) $(MPI_LIBS)

build/test/record_sample: tests/record_sample.c $(TLIB_OBJ)
	@mkdir -p build/test
	$(CC) $(CSTD) $(WARN) $(SAN) -O1 -Iinclude -o $@ $< $(TLIB_OBJ) $(LIBS)

build/test/tracedb: $(TCLI_OBJ) $(TLIB_OBJ)
	$(CC) $(SAN) -o $@ $^ $(LIBS)

build/test/unit: $(UNIT_SRC) $(TLIB_OBJ) $(HDRS)
	$(CC) $(ALL_CFLAGS) $(SAN) $(CUPTI_INC) -o $@ $(UNIT_SRC) $(TLIB_OBJ) $(LIBS) -lcriterion

test check:
	@sh tools/deps.sh test
	@$(MAKE) --no-print-directory test-run

# every source through clang too, warnings as errors (the brief: no warnings under gcc and clang)
clang-check: build/embedded.c
	@for f in $(LIB_SRC) $(CUPTI_SRC) $(CLI_SRC) $(EXT_SRC) build/embedded.c bench/gen_trace.c bench/tokenize.c tools/embed.c; do \
	  clang $(CSTD) $(WARN) $(CUPTI_INC) $(INCS) -fsyntax-only $$f || exit 1; done
	@clang++ $(filter-out $(CFLAGS),$(ALL_CXXFLAGS)) -fsyntax-only $(CXX_SRC)
	@clang $(CSTD) $(WARN) $(NVTX_INC) $(INCS) -fsyntax-only recorder/live/nvtx_inject.c $(INJECT_OBJ:build/obj/%.o=%.c) samples/nvtx_sample.c tests/nvtx_steps.c tests/record_sample.c
	@clang $(CSTD) -Wall -Wextra -Werror $(CUPTI_INC) $(INCS) -fsyntax-only $(UNIT_SRC)
	@$(if $(HAVE_MPI),clang $(CSTD) $(WARN) $(INCS) $(MPI_CFLAGS) -fsyntax-only $(MPI_SRC))
	@$(if $(HAVE_CUPTI),clang $(CSTD) $(WARN) $(CUPTI_INC) $(INCS) -fsyntax-only bench/cupti_stage.c tests/gpu/cupti_count.c)
	@clang $(CSTD) $(WARN) $(CUPTI_INC) $(INCS) -DTDB_SOURCE_DIR='"$(CURDIR)"' -fsyntax-only $(wildcard tests/fuzz/*.c)
	@echo "clang: no warnings"

test-run: build build/test/tracedb build/test/unit build/test/record_sample build/gen_trace \
          $(if $(HAVE_CUPTI),build/libtracedb_inject.so build/nvtx_sample build/nvtx_steps build/inject_probe) $(if $(HAVE_MPI),build/test/tracedb-mpi)
	@rm -f build/test/skipped.txt
	@$(if $(HAVE_CUPTI),,if [ "$$CI" = true ]; then echo "make test: CI=true and no CUDA toolkit at $(CUDA_HOME): the recording and CUPTI tests would not be built" >&2; exit 1; fi; \
	  echo "no CUDA toolkit at $(CUDA_HOME): the recording and CUPTI tests are not built" >> build/test/skipped.txt)
	TRACEDB=$(CURDIR)/build/test/tracedb TRACEDB_INJECT=$(CURDIR)/build/libtracedb_inject.so TRACEDB_ROOT=$(CURDIR) ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
	  TRACEDB_MPI=$(if $(HAVE_MPI),$(CURDIR)/build/test/tracedb-mpi) TRACEDB_SKIPS=$(CURDIR)/build/test/skipped.txt \
	  UBSAN_OPTIONS=print_stacktrace=1 build/test/unit --jobs 2
	/usr/bin/python3 tests/gpu/test_check.py
	TRACEDB=$(CURDIR)/build/tracedb PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 -m pytest -q -p no:cacheprovider python/tests
	@$(MAKE) --no-print-directory fuzzers
	sh tests/fuzz/run.sh $${FUZZ_TEST_SECONDS:-60} $(FUZZ_TARGETS)
	@if [ -s build/test/skipped.txt ]; then echo "make test: passed, with skips: $$(sort -u build/test/skipped.txt | paste -sd ';' | sed 's/;/; /g')"; fi

# the release build (what users run, no sanitizers) under valgrind's memcheck: imports, every report,
# exports, diff, merge, a recording (tests/valgrind.sh; about 90 s). CI runs it after make test.
valgrind:
	@sh tools/deps.sh test
	@$(MAKE) --no-print-directory build/tracedb $(if $(HAVE_CUPTI),build/libtracedb_inject.so build/nvtx_sample)
	sh tests/valgrind.sh build

# --- benchmarks
build/gen_trace: bench/gen_trace.c
	@mkdir -p build
	$(CC) $(CSTD) $(WARN) -O2 -o $@ $< -lz

build/tokenize: bench/tokenize.c
	@mkdir -p build
	$(CC) $(CSTD) $(WARN) -O2 -o $@ $< -lyajl

build/recorder_bench: bench/recorder_bench.c build/libtracedb.a
	$(CC) $(CSTD) $(WARN) -O2 -Iinclude -o $@ $< build/libtracedb.a $(LIBS)

# the same, linked with libtracedb.so: the hot path as a program linked with -ltracedb pays it
build/recorder_bench_shared: bench/recorder_bench.c build/libtracedb.so
	$(CC) $(CSTD) $(WARN) -O2 -Iinclude -o $@ $< -Lbuild -ltracedb -Wl,-rpath,$(CURDIR)/build $(LIBS)

# a CUDA recording's staging file (bench/cupti_stage.c): how long closing 3 M events takes
build/cupti_stage: bench/cupti_stage.c build/libtracedb.a
	$(CC) $(CSTD) $(WARN) -O2 $(INCS) $(CUPTI_INC) -o $@ $< build/libtracedb.a $(LIBS)

bench:
	@sh tools/deps.sh bench
	@$(MAKE) --no-print-directory build/tracedb build/gen_trace build/tokenize build/recorder_bench build/recorder_bench_shared \
	  $(if $(HAVE_CUPTI),build/cupti_stage) \
	  $(if $(HAVE_MPI),build/tracedb-mpi)
	sh bench/run.sh

# --- fuzzing (libFuzzer, clang): seven targets over in-memory databases, seeded from tests/fuzz/corpus;
#   make fuzz          each target for FUZZ_SECONDS (default 300), two at a time
#   make test          replays tests/fuzz/regress (every crash found, kept), then FUZZ_TEST_SECONDS each (60)
#   make fuzz-long     a nightly run of the targets whose runs cost most (json, db, stage: a few hundred runs
#                      a second at best, the others thousands), FUZZ_LONG_SECONDS each (default 3600)
FUZZ_TARGETS = json gzip sql cli db stage $(if $(HAVE_CUPTI),cupti)
FUZZ_FLAGS   = $(CSTD) $(WARN) -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
               $(INCS) $(CUPTI_INC) -DTDB_SOURCE_DIR='"$(CURDIR)"'
FUZZ_LIB_OBJ = $(LIB_SRC:%.c=build/fuzz/obj/%.o) $(CXX_SRC:%.cpp=build/fuzz/obj/%.o) $(CUPTI_SRC:%.c=build/fuzz/obj/%.o) build/fuzz/obj/embedded.o
FUZZ_CLI_OBJ = $(filter-out build/fuzz/obj/analyzer/cli/main.o,$(CLI_SRC:%.c=build/fuzz/obj/%.o))

build/fuzz/obj/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	clang $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

build/fuzz/obj/embedded.o: build/embedded.c util/embedded.h
	@mkdir -p $(dir $@)
	clang $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

# (the function and vptr checks need the C++ runtime of UBSan, which the C driver does not link)
build/fuzz/obj/%.o: %.cpp $(HDRS)
	@mkdir -p $(dir $@)
	clang++ $(filter-out $(CFLAGS),$(ALL_CXXFLAGS)) -g -O1 -fsanitize=address,undefined -fno-sanitize=function,vptr -fno-sanitize-recover=all -fno-omit-frame-pointer -fsanitize=fuzzer-no-link -c -o $@ $<

build/fuzz/fuzz_json: tests/fuzz/fuzz_import.c $(FUZZ_LIB_OBJ)
	clang $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $^ $(LIBS)

build/fuzz/fuzz_gzip: tests/fuzz/fuzz_import.c $(FUZZ_LIB_OBJ)
	clang $(FUZZ_FLAGS) -DFUZZ_GZIP -fsanitize=fuzzer -o $@ $^ $(LIBS)

build/fuzz/fuzz_sql: tests/fuzz/fuzz_sql.c tests/fuzz/sample_db.h $(FUZZ_LIB_OBJ)
	clang $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB_OBJ) $(LIBS)

build/fuzz/fuzz_cli: tests/fuzz/fuzz_cli.c tests/fuzz/sample_db.h $(FUZZ_CLI_OBJ) $(FUZZ_LIB_OBJ)
	clang $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_CLI_OBJ) $(FUZZ_LIB_OBJ) $(LIBS)

build/fuzz/fuzz_db: tests/fuzz/fuzz_db.c $(FUZZ_CLI_OBJ) $(FUZZ_LIB_OBJ)
	clang $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_CLI_OBJ) $(FUZZ_LIB_OBJ) $(LIBS)

build/fuzz/fuzz_stage: tests/fuzz/fuzz_stage.c $(FUZZ_LIB_OBJ)
	clang $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $^ $(LIBS)

build/fuzz/fuzz_cupti: tests/fuzz/fuzz_cupti.c $(FUZZ_LIB_OBJ)
	clang $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $^ $(LIBS)

fuzzers: $(FUZZ_TARGETS:%=build/fuzz/fuzz_%)

fuzz:
	@sh tools/deps.sh test
	@$(MAKE) --no-print-directory fuzzers
	sh tests/fuzz/run.sh $${FUZZ_SECONDS:-300} $(FUZZ_TARGETS)

fuzz-long:
	@sh tools/deps.sh test
	@$(MAKE) --no-print-directory build/fuzz/fuzz_json build/fuzz/fuzz_db build/fuzz/fuzz_stage
	sh tests/fuzz/run.sh $${FUZZ_LONG_SECONDS:-3600} json db stage

# --- a real GPU (tests/gpu/check.sh): the programs and libraries the check runs, in .gpu/ (not tracked),
#   to be run where a GPU is: `bash tests/gpu/check.sh .gpu OUTDIR` (needs the CUDA toolkit here);
#   make gpu-check: both, on a machine with the toolkit and a GPU (results in build/gpu-check).
#   gpu-bundle first installs, as root on Debian, what the build and the check need (tools/deps.sh gpu).
# cuda_counts is built for this machine's GPU (-arch=native) when nvidia-smi lists one, else for each
# architecture from Volta (sm_70) to Hopper (sm_90) that this nvcc builds, with PTX of the last for newer
# GPUs. CUDA 13's nvcc starts at sm_75 (Turing, T4): a V100 (sm_70) needs a CUDA 12 toolkit, whose
# --list-gpu-code lists sm_70, and then it is built for too.
GPU_LIBS = sqlite3 yajl simdjson cjson csv
NVCC = $(CUDA_HOME)/bin/nvcc
GPU_ARCHS = $(filter sm_70 sm_75 sm_80 sm_86 sm_89 sm_90,$(shell $(NVCC) --list-gpu-code 2>/dev/null))
GPU_GENCODE = $(foreach a,$(GPU_ARCHS),-gencode arch=compute_$(a:sm_%=%),code=$(a)) \
  -gencode arch=compute_$(lastword $(GPU_ARCHS:sm_%=%)),code=compute_$(lastword $(GPU_ARCHS:sm_%=%))
CUDA_COUNTS_BUILD = $(NVCC) -O2 -I$(CUDA_HOME)/include -o .gpu/bin/cuda_counts tests/gpu/cuda_counts.cu
gpu-bundle:
	@sh tools/deps.sh gpu
	@test -n "$(HAVE_CUPTI)" || { echo "gpu-bundle: needs the CUDA toolkit (CUDA_HOME)"; exit 1; }
	@$(MAKE) --no-print-directory gpu-bundle-files

gpu-bundle-files: build/tracedb build/libtracedb_inject.so tests/gpu/cuda_counts.cu tests/gpu/cupti_count.c
	rm -rf .gpu && mkdir -p .gpu/bin .gpu/lib .gpu/cupti
	cp build/tracedb build/libtracedb_inject.so .gpu/bin/
	@if nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then \
	  echo "$(CUDA_COUNTS_BUILD) -arch=native"; \
	  if $(CUDA_COUNTS_BUILD) -arch=native; then echo "-arch=native: $$(nvidia-smi --query-gpu=name,compute_cap --format=csv,noheader | head -1)" > .gpu/built_for.txt; \
	  else echo "gpu-bundle: nvcc -arch=native failed (this GPU too old or too new for this nvcc?): building for $(GPU_ARCHS)"; fi; \
	fi; \
	if [ ! -f .gpu/built_for.txt ]; then \
	  test -n "$(GPU_ARCHS)" || { echo "gpu-bundle: $(NVCC) lists none of sm_70 to sm_90"; exit 1; }; \
	  echo "$(CUDA_COUNTS_BUILD) $(GPU_GENCODE)"; \
	  $(CUDA_COUNTS_BUILD) $(GPU_GENCODE) && echo "$(GPU_ARCHS) and PTX of the last" > .gpu/built_for.txt; \
	fi
	$(CC) $(CSTD) $(WARN) -O2 -shared -fPIC -I$(CUDA_HOME)/include -o .gpu/bin/libcupti_count.so tests/gpu/cupti_count.c \
	  -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcupti -lstdc++
	for l in $(GPU_LIBS); do cp -L $$(ldd build/tracedb build/libtracedb_inject.so | awk '$$1 ~ /^lib'$$l'\.so/ {print $$3; exit}') .gpu/lib/; done
	cp -L $(CUDA_HOME)/lib64/libcupti.so.* .gpu/cupti/ 2>/dev/null || cp -L $$(ldd build/libtracedb_inject.so | awk '/libcupti/ {print $$3}') .gpu/cupti/

# the set-up and the check within 10 minutes: the check gets what the set-up left of 570 s
gpu-check:
	@t0=$$(date +%s); $(MAKE) --no-print-directory gpu-bundle && \
	  echo "gpu-check: set-up in $$(($$(date +%s) - t0)) s" && \
	  TOTAL_SECONDS=$${TOTAL_SECONDS:-$$((570 - $$(date +%s) + t0))} bash tests/gpu/check.sh .gpu build/gpu-check

# the Python package goes where Debian's /usr/bin/python3 looks under PREFIX (PYTHONDIR= overrides), told
# where the library is (python/tracedb/_native.py reads _where.py)
PYTHON_MINOR := $(shell /usr/bin/python3 -c 'import sys; print(sys.version_info[1])' 2>/dev/null)
PYTHONDIR ?= $(PREFIX)/lib/python3$(if $(PYTHON_MINOR),.$(PYTHON_MINOR))/dist-packages
install: build
	install -d $(DESTDIR)$(PYTHONDIR)/tracedb
	install -m 644 python/tracedb/*.py $(DESTDIR)$(PYTHONDIR)/tracedb/
	printf '"""_where.py: written by make install: the library installed with this package."""\nLIBRARY = %s\n' \
	  "'$(PREFIX)/lib/libtracedb.so'" > $(DESTDIR)$(PYTHONDIR)/tracedb/_where.py
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/tracedb \
	  $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man7 $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 644 build/tracedb.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 build/tracedb-schema.7 $(DESTDIR)$(PREFIX)/share/man/man7/
	install -m 644 tools/completion.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/tracedb
	$(if $(HAVE_CUPTI),install -m 755 build/libtracedb_inject.so $(DESTDIR)$(PREFIX)/lib/tracedb/)
	install -m 755 build/tracedb $(DESTDIR)$(PREFIX)/bin/
	install -m 644 build/libtracedb.a build/libtracedb.so $(DESTDIR)$(PREFIX)/lib/
	install -m 644 include/tracedb.h $(DESTDIR)$(PREFIX)/include/
	sed 's|^prefix=.*|prefix=$(PREFIX)|' build/tracedb.pc > $(DESTDIR)$(PREFIX)/lib/pkgconfig/tracedb.pc

clean:
	rm -rf build
