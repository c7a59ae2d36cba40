"""Alice/Bob protocols built from real models, reproducing their finite-precision outputs.

- :mod:`.rnn`: Theorem 2 (one-way, send the whole state) for every recurrent model;
- :mod:`.attention`: Theorem 4 (two-way, any partition) for a one-layer Transformer, and the
  one-way variant of the mixture-of-parrots paper (Lemma A.3);
- :mod:`.certificate`: re-checks the JSON certificate of a run;
- :mod:`.harness`: parties, schedules, runs and replays shared by all of them.
"""
