# The course's commands. Each one sets up .venv/ first when it is missing or stale.
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
KERNEL := bertscore-course
NBVAL  := --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg --nbval-cell-timeout=600
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: setup lab test test-unit test-notebooks check student run bench demo present clean

setup: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements.txt
	$(PY) -m pip install -q --disable-pip-version-check --no-deps --no-build-isolation -e .
	$(PY) -m ipykernel install --sys-prefix --name $(KERNEL) --display-name "BERTScore course" >/dev/null
	touch $(STAMP)

## make lab: open the course in JupyterLab
# Jupyter refuses to run as root (containers, CI machines) unless told it may.
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)

lab: $(STAMP)
	$(VENV)/bin/jupyter lab --ServerApp.root_dir=notebooks $(ROOT_FLAG)

## make test: every test (unit tests, then nbval over the chapter notebooks)
test: test-unit test-notebooks

test-unit: $(STAMP)
	$(PY) -m pytest -q tests

test-notebooks: $(STAMP)
	$(PY) -m pytest -q $(NBVAL) notebooks/[0-9]*.ipynb $(wildcard notebooks/demo.ipynb)

## make check NB=notebooks/student/01_lexical_metrics.ipynb: run one notebook, show its exercise checks
check: $(STAMP)
	$(PY) -m course_lib.course.run_notebooks --checks $(NB)

## make student: regenerate the student notebooks from the solution notebooks
student: $(STAMP)
	$(PY) -m course_lib.course.exercises

## make run: execute every chapter headless and print each one's time
run: $(STAMP)
	$(PY) -m course_lib.course.run_notebooks notebooks/[0-9]*.ipynb

bench: $(STAMP)
	$(PY) tests/benchmark.py

## make demo: the live demo in JupyterLab (a temporary copy of notebooks/demo.ipynb: the tree stays clean)
demo: $(STAMP)
	$(PY) -m course_lib.demo.launch lab

## make present: the presenter view, widgets only (Voila, 127.0.0.1, a token), for a projector
present: $(STAMP)
	$(PY) -m course_lib.demo.launch present

clean:
	rm -rf $(VENV)
