# The course's commands. Each one sets up .venv/ first when it is missing or stale.
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
NBVAL  := --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg --nbval-cell-timeout=600
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.DEFAULT_GOAL := help
.PHONY: help setup lab test test-unit test-notebooks check student kernel nbgrader student-release memory run figures bench demo present book clean

## make help: this list [instant]
help:
	@sed -n 's/^## make /  make /p' $(firstword $(MAKEFILE_LIST))

## make setup: create .venv/ and install the course (every command does it when needed) [2-5 min, once]
setup: $(STAMP)

# The Python that creates .venv: PYTHON=... if given, else the newest of python3.13, python3.12,
# python3.11, python3 on PATH that runs and is 3.11 or newer (pyenv's shims may exist and fail).
PYTHON ?= $(shell for p in python3.13 python3.12 python3.11 python3; do \
	$$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1 && { echo $$p; break; }; done)
# TORCH=cpu (Linux): take torch from PyTorch's CPU-only index (about 190 MB) instead of PyPI's
# Linux wheel, which is built for CUDA and pulls several GB of NVIDIA libraries. Where that index does
# not answer within 10 s, it says so and goes on with PyPI's torch (pip would retry for minutes).
TORCH ?= default
TORCH_CPU_INDEX := https://download.pytorch.org/whl/cpu
TORCH_PIN := $(shell grep -E '^torch==' requirements.txt | cut -d' ' -f1)

$(STAMP): requirements.txt pyproject.toml
	@test -n "$(PYTHON)" || { echo "error: the course needs Python 3.11, 3.12 or 3.13, and none was found" \
	  "(found: $$(python3 --version 2>&1)). Install one, or pass PYTHON=/path/to/python3.11." >&2; exit 1; }
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "error: $(PYTHON) is" \
	  "$$($(PYTHON) --version 2>&1); the course needs Python 3.11, 3.12 or 3.13." >&2; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@$(PY) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "error: $(VENV) was made with" \
	  "$$($(PY) --version 2>&1); run make clean, then make again with Python 3.11-3.13." >&2; exit 1; }
ifeq ($(TORCH),cpu)
	@if $(PY) -c 'import urllib.request as u; u.urlopen("$(TORCH_CPU_INDEX)/torch/", timeout=10)' 2>/dev/null; \
	then $(PY) -m pip install -q --disable-pip-version-check "$(TORCH_PIN)" --index-url $(TORCH_CPU_INDEX); \
	else echo "TORCH=cpu: PyTorch's index ($(TORCH_CPU_INDEX)) does not answer from here, so torch comes from" \
	  "PyPI as without TORCH=cpu (on Linux the CUDA build, about 3 GB)." >&2; fi
endif
	$(PY) -m pip install -q --disable-pip-version-check -r requirements.txt
	$(PY) -m pip install -q --disable-pip-version-check --no-deps --no-build-isolation -e .
	$(PY) -m course_lib.course.lab --install >/dev/null
	touch $(STAMP)

## make lab: open the course in JupyterLab, on your own copies in work/, START_HERE first [~10 s; first run: setup]
#   (copies made the first time, never overwritten; git ignores work/)
lab: $(STAMP)
	@$(PY) -m course_lib.course.lab

## make test: every test: the book, the unit tests, then nbval over the chapters [~45 min on 2 cores]
#   (the book is built first, its pages are tested with the unit tests; then nbval over the chapter notebooks)
# Tests run on the CPU (CUDA_VISIBLE_DEVICES empty: a GPU would change digits at 1e-7) and save
# figures to a fresh temporary folder (COURSE_FIGURES), never over the committed figures/.
# -rs prints the reason of every skip; under CI (COURSE_CI=1, see .ci/run) a skip is a failure.
TEST_RUN = d=$$(mktemp -d) && CUDA_VISIBLE_DEVICES= COURSE_FIGURES=$$d
TEST_END = ; rc=$$?; rm -rf "$$d"; exit $$rc

test: test-unit test-notebooks

## make test-unit: the first half of make test: the book, then the unit tests in tests/ [~35 min on 2 cores]
test-unit: $(STAMP) book
	$(TEST_RUN) $(PY) -m pytest -q -rs tests $(TEST_END)

## make test-notebooks: the second half of make test: nbval over every chapter and the demo [~5 min on 2 cores]
test-notebooks: $(STAMP)
	$(TEST_RUN) $(PY) -m pytest -q -rs $(NBVAL) notebooks/[0-9]*.ipynb $(wildcard notebooks/demo.ipynb) $(TEST_END)

## make check NB=work/01_lexical_metrics.ipynb: run your copy of a chapter, one line per exercise [its run time]
## make check NB=work/08_human_agreement.ipynb EX=8.2: check one exercise [1-60 s]
#   Runs only the cells it needs (the set-up cell, the exercise's own cells and the earlier cells defining the names
#   they use), not the whole chapter. A failed check gives a hint; after repeated failed runs (they
#   are remembered in your cache folder, not in the course), with HINT=2, or with
#   check_8_2(leave_one_pair_out, hint=2) in the notebook, the hint shows the code.
check: $(STAMP)
	$(PY) -m course_lib.course.run_notebooks --checks $(if $(EX),--exercise $(EX)) $(if $(HINT),--hint $(HINT)) $(NB)

## make student: regenerate the student notebooks from the solution notebooks [~10 s]
student: $(STAMP)
	$(PY) -m course_lib.course.exercises

## make kernel: make every notebook (chapters, demo, student) ask for the course's kernel, after a merge [~5 s]
kernel: $(STAMP)
	$(PY) -m course_lib.course.exercises --kernel

## make nbgrader OUT=DIR [COURSE_URL=...]: an nbgrader course folder made from the solution notebooks now [~30 s]
#   (nbgrader_config.py with the course's kernel, a fresh grading seed and grading mode;
#   source/<chapter>/<chapter>.ipynb)
nbgrader: $(STAMP)
	@test -n "$(OUT)" || { echo "usage: make nbgrader OUT=DIR" >&2; exit 1; }
	$(PY) -m course_lib.course.nbgrader_course $(OUT) --url "$(COURSE_URL)"

## make student-release OUT=DIR [COURSE_URL=...]: the course without solutions, for students [~10 s]
#   (see the README's list); COURSE_URL is where you will put its archive, for Colab's first cell
student-release: $(STAMP)
	@test -n "$(OUT)" || { echo "usage: make student-release OUT=DIR" >&2; exit 1; }
	$(PY) -m course_lib.course.student_release $(OUT) --url "$(COURSE_URL)"

## make memory: each chapter's peak memory on a fresh kernel, into the README's table [~12 min on 2 cores]
memory: $(STAMP)
	CUDA_VISIBLE_DEVICES= $(PY) -m course_lib.course.memory --readme notebooks/[0-9]*.ipynb

## make run: execute every chapter headless and print each one's time [~10 min on 2 cores]
#   (figures go to your per-user output folder, never over figures/: the tree stays clean)
run: $(STAMP)
	$(PY) -m course_lib.course.run_notebooks notebooks/[0-9]*.ipynb

## make figures: re-execute every chapter and the demo, refreshing figures/ on purpose [~10 min]
figures: $(STAMP)
	CUDA_VISIBLE_DEVICES= COURSE_FIGURES=$(CURDIR)/figures $(PY) -m course_lib.course.run_notebooks \
	  notebooks/[0-9]*.ipynb notebooks/demo.ipynb

## make bench: speed and memory against bert-score and the bare forward pass [~30 min]
bench: $(STAMP)
	$(PY) tests/benchmark.py

## make demo: the live demo in JupyterLab, on a temporary copy of notebooks/demo.ipynb [~15 s]
demo: $(STAMP)
	$(PY) course_lib/demo/launch.py lab

## make present: the presenter view for a projector: widgets only (Voila, 127.0.0.1, a token) [~15 s]
present: $(STAMP)
	$(PY) course_lib/demo/launch.py present

## make book: the course as a static site, build/book/_build/html/index.html [~1 min; first time +1 min]
#   (works offline, from disk). Built from the notebooks' stored outputs (nothing runs); the first time, installs the
#   book's pinned packages (pyproject.toml's `book` extra) into .venv. Warnings are errors
#   (BOOK_FLAGS=--strict, the default; BOOK_FLAGS= to see a draft despite warnings).
BOOK_FLAGS ?= --strict
BOOK_STAMP := $(VENV)/.book-installed

$(BOOK_STAMP): $(STAMP) pyproject.toml
	$(PY) -c 'import course_lib.course.book as b; b.install()'
	touch $(BOOK_STAMP)

book: $(BOOK_STAMP)
	$(PY) -m course_lib.course.book $(BOOK_FLAGS)

## make clean: delete .venv/ (the next command sets it up again) [instant]
clean:
	rm -rf $(VENV)
