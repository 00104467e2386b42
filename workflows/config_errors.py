"""A configuration the schema (config/schema.yaml) rejects, said in one line: the key, what is
wrong with its value, and what the key takes (its description in the schema), instead of
jsonschema's dump of the schema. Used by the Snakefile around snakemake's `validate`."""
import yaml
from jsonschema.exceptions import ValidationError
from snakemake.exceptions import WorkflowError

README = "config/README.md, Keys"


def what_it_takes(schema, path):
    """The description of the deepest key on `path` that has one (list indices skipped)."""
    found, node = None, schema
    for part in path:
        if isinstance(part, int):
            node = node.get("items", {})
            continue
        node = node.get("properties", {}).get(part, {})
        found = node.get("description", found)
    return found


def schema_error(error, schema_path):
    """`error` (snakemake's WorkflowError from validating the configuration) as a one-line
    WorkflowError; any other error as it is."""
    cause = error.__context__
    if not isinstance(cause, ValidationError):
        return error
    with open(schema_path) as f:
        schema = yaml.safe_load(f)
    path = [p for p in cause.absolute_path]
    key = ".".join(str(p) for p in path)
    takes = what_it_takes(schema, path)
    fix = f"it takes {takes}" if takes else f"see {README}"
    if isinstance(cause.instance, list) and any(isinstance(v, str) and v.isdigit() for v in cause.instance):
        fix += " (snakemake --config reads a list's numbers as strings: give such a list in a --configfile)"
    return WorkflowError(f"config key {key or '(top level)'}: {cause.message}; {fix}")
