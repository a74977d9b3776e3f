"""Vision models that describe screenshots in words (docs/architecture.md): one module of request
and answer shapes per API family, reached over HTTP with `requests`. The ordered chain of describers
(models, then the vision command) is clawd/page/observe/vision.py's."""
