"""Wire models of the published contract; the only definition of the JSON shapes."""
