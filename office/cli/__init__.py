"""The ``office`` command: ``main`` builds the parser; each module adds its commands."""
