"""The report's sections, one module each (see tether.report.section): each module
registers its section on import, and the report imports every module here."""
