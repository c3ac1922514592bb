# The commands students and instructors type. CMake does the building, in
# build/; this file only forwards. `make help` lists the targets.

BUILD  ?= build
STEP   ?=
REPEAT ?= 1
TESTS  ?=
JOBS   ?= $(shell nproc 2>/dev/null || echo 4)

# The CUDA toolkit often sits outside PATH; CUDA_HOME says where, if not /usr/local/cuda.
CUDA_HOME ?= /usr/local/cuda
ifeq ($(shell command -v nvcc 2>/dev/null),)
export PATH := $(CUDA_HOME)/bin:$(PATH)
endif

# Catch2 and nlohmann-json carried to an offline GPU server (scripts/carry-deps.sh) is found here.
CMAKE_ARGS += $(if $(wildcard .deps/include),-DCMAKE_PREFIX_PATH=$(CURDIR)/.deps)
CMAKE_ARGS += $(if $(shell command -v ninja 2>/dev/null),-G Ninja)

LABS := $(sort $(foreach dir,$(wildcard labs/lab*_*/),$(firstword $(subst _, ,$(notdir $(dir:/=))))))
STAMP := $(BUILD)/.configured

.PHONY: help bootstrap configure build test gpu-check bench reliability grade release docs clean carry-deps FORCE
.DEFAULT_GOAL := help
FORCE:

help:
	@echo "Students"
	@echo "  make lab1            build labs/lab1_*/ and check every step (STEP=2: steps 1..2 only)"
	@echo "  make lab1-profile    the lab's Nsight Compute measurements, explained (REFERENCE=1: of the reference)"
	@echo "  make lab5-sanitize   check the lab's shared-memory kernels for races (compute-sanitizer racecheck)"
	@echo "  make test            the project's whole test suite (GPU tests skip without a GPU)"
	@echo "Instructors and developers"
	@echo "  make grade LAB=N SUBMISSIONS=DIR OUT=DIR   grade a class's submissions of lab N"
	@echo "                       (POINTS=file, RESUME=1, SANITIZE=1; grader/grade.py --help for more)"
	@echo "                       GPUS=all (or 0,1): one grading worker per GPU of this server"
	@echo "                       SLURM=1: compile here, grade in a Slurm job array (GRADE_ARGS=\"--partition P ...\")"
	@echo "                       students' code runs sandboxed by bubblewrap (bwrap); where bwrap cannot"
	@echo "                       run, GRADE_ARGS=--no-sandbox grades without it (recorded in run.json)"
	@echo "  make release OUT=DIR the students' handout: no solutions, the references prebuilt for every GPU"
	@echo "  make gpu-check       build and run every GPU test, print a table (REPEAT=20, TESTS=regex)"
	@echo "  make bench           the performance report: each lab's reference against thrust and cuBLAS"
	@echo "                       (printed, and written to $(BUILD)/bench/report.md)"
	@echo "  make reliability     each lab's grader RUNS=50 times on the reference: timing failures, ratio spread"
	@echo "  make docs            HTML documentation into $(BUILD)/docs/html"
	@echo "  make bootstrap       install missing packages (Debian/Ubuntu)"
	@echo "  make carry-deps      copy Catch2, nlohmann-json and bwrap into .deps/ for a GPU server without network"
	@echo "  make clean           remove $(BUILD)/"
	@echo "Labs here: $(LABS)"

bootstrap:
	@scripts/bootstrap.sh --plots --docs

# Configure once; again only if the last attempt failed (no stamp).
$(STAMP):
	@scripts/bootstrap.sh
	cmake -S . -B $(BUILD) $(CMAKE_ARGS)
	@touch $@

configure: $(STAMP)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

lab%-profile: configure FORCE
	@LAB_BUILD=$(if $(REFERENCE),reference,student) scripts/profile.sh lab$*

lab%-sanitize: configure FORCE
	@LAB_BUILD=$(if $(REFERENCE),reference,student) scripts/sanitize.sh lab$*

lab%: configure FORCE
	@scripts/bootstrap.sh --plots || echo "(continuing: the lab runs without plots)"
	@scripts/lab.sh lab$* $(STEP)

test: build
	ctest --test-dir $(BUILD) --output-on-failure

gpu-check: configure
	@REPEAT=$(REPEAT) TESTS='$(TESTS)' JOBS=$(JOBS) scripts/gpu-check.sh $(BUILD)

# The performance report (bench/performance.cu); needs a GPU.
bench: configure
	cmake --build $(BUILD) -j $(JOBS) --target bench_performance
	$(BUILD)/bench/bench_performance --output $(BUILD)/bench/report.md

# How often each lab's grader fails the reference on timing (scripts/grader_reliability.py); needs a GPU.
RUNS ?= 50
reliability: configure
	cmake --build $(BUILD) -j $(JOBS) $(foreach lab,$(if $(LAB),lab$(LAB),$(LABS)),--target $(lab))
	python3 scripts/grader_reliability.py --build $(BUILD) --runs $(RUNS) $(if $(LAB),--lab $(LAB)) --output $(BUILD)/reliability

# The instructors' grader (grader/README.md). GRADE_ARGS passes any other option of grader/grade.py.
grade: configure FORCE
	$(if $(and $(LAB),$(SUBMISSIONS),$(OUT)),,$(error usage: make grade LAB=N SUBMISSIONS=DIR OUT=DIR [POINTS=file] [RESUME=1] [SANITIZE=1] [GPUS=all] [SLURM=1]))
	@scripts/bootstrap.sh --grading || echo "(continuing: grade.py says what is missing)"
	@cmake -S . -B $(BUILD) >/dev/null  # finds what bootstrap installed (cuobjdump)
	@python3 grader/grade.py --lab '$(LAB)' --submissions '$(SUBMISSIONS)' --out '$(OUT)' --build '$(BUILD)' \
	  --jobs $(JOBS) $(if $(POINTS),--points '$(POINTS)') $(if $(RESUME),--resume) $(if $(SANITIZE),--sanitize) \
	  $(if $(GPUS),--gpus '$(GPUS)') $(if $(SLURM),--slurm) $(GRADE_ARGS)

# The students' handout (scripts/release.py): the labs without solutions/, each reference
# prebuilt for every supported GPU in references/, checked for solution source.
release: FORCE
	$(if $(OUT),,$(error usage: make release OUT=DIR))
	@scripts/bootstrap.sh
	@JOBS=$(JOBS) python3 scripts/release.py --out '$(OUT)' --build '$(BUILD)/release'

# Doxygen may have been installed after the first configure: look for it again.
docs: configure
	@scripts/bootstrap.sh --docs
	@cmake -S . -B $(BUILD) >/dev/null
	cmake --build $(BUILD) --target docs

carry-deps:
	@scripts/carry-deps.sh

clean:
	rm -rf $(BUILD)
