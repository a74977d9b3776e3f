"""Documentation rendered from clawd's declarations (the argparse tree, the route table,
the schema)."""
