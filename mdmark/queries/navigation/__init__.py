"""What is at a place of a document or of the index, where it is defined and who refers to it: one
query module per language-server feature (:mod:`definition`, :mod:`references`, :mod:`hover`,
:mod:`completion`, :mod:`symbols`, :mod:`rename`, :mod:`fixes`) over one :class:`~.navigator.Navigator`
of a check run's project (:mod:`navigator`: places, what is at a position, where things are)."""
