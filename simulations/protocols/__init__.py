"""Alice/Bob protocols built from real models, reproducing their finite-precision outputs.

- :mod:`.rnn`: Theorem 2 (one-way, send the whole state) for every recurrent model;
- :mod:`.attention`: Theorem 4 for a one-layer Transformer, two-way and single-output, any
  partition, and the one-way variant of the mixture-of-parrots paper (Lemma A.3, public query);
- :mod:`.reductions`: the lower-bound reductions (Thm 3, 5, 8, 11) run on models, each resting
  on its claims-table row;
- :mod:`.bits_used`: the bits a float recurrent model actually uses at a cut;
- :mod:`.certificate`: re-checks the JSON certificate of a run;
- :mod:`.harness`: parties, schedules, runs and replays shared by all of them, and the one
  model source (a seeded registry model or a trained checkpoint).
"""
