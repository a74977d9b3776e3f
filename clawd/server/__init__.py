"""The HTTP service: the one request handler, the route table and its endpoints."""
