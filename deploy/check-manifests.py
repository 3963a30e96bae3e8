#!/usr/bin/python3
"""Checks deploy/kubernetes/*.yaml without a cluster, and the LEGIBLE_* settings of the
manifests and of deploy/legibled.service against legibled itself.

- every file parses (PyYAML) and every document has apiVersion, kind and metadata.name;
- the Service and the PodDisruptionBudget select the Deployment's pods; probes and the
  Service's targetPort name ports the container has; readiness is a gRPC probe of the legible
  port (the health service), liveness GETs /healthz on the metrics port, which LEGIBLE_METRICS
  listens on;
- `legibled --print-config` accepts each file's LEGIBLE_* variables and reports every one of them
  as coming from the environment (a misspelt name would be ignored silently otherwise).

Needs Debian's python3-yaml (`make check-deploy` installs it). Usage:
deploy/check-manifests.py [--legibled PATH]
"""
import argparse
import glob
import os
import shlex
import subprocess
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def fail(message):
    sys.exit(f"check-manifests: {message}")


def check_print_config(legibled, env, origin):
    """legibled takes these variables: exit 0 and each one named as a source."""
    tokens = tempfile.NamedTemporaryFile("w", suffix=".tokens", delete=False)
    tokens.write("a-token\n")
    tokens.close()
    env = dict(env)
    if "LEGIBLE_AUTH_TOKEN_FILE" in env:
        env["LEGIBLE_AUTH_TOKEN_FILE"] = tokens.name  # the real path exists only in the pod
    clean = {k: v for k, v in os.environ.items() if not k.startswith("LEGIBLE_")}
    out = subprocess.run([legibled, "--print-config"], env={**clean, **env}, capture_output=True, text=True,
                         timeout=30)
    os.unlink(tokens.name)
    if out.returncode != 0:
        fail(f"{origin}: legibled --print-config rejects the settings: {out.stderr.strip()}")
    for name in env:
        if name.startswith("LEGIBLE_") and f"environment {name}" not in out.stdout:
            fail(f"{origin}: {name} is not a legibled setting (legibled --print-config did not use it)")
    return out.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--legibled", default=os.path.join(REPO, ".build", "debug", "legibled"))
    args = parser.parse_args()

    documents = {}
    for path in sorted(glob.glob(os.path.join(HERE, "kubernetes", "*.yaml"))):
        for doc in yaml.safe_load_all(open(path)):
            if doc is None:
                continue
            for key in ("apiVersion", "kind"):
                if key not in doc:
                    fail(f"{path}: a document without {key}")
            if not doc.get("metadata", {}).get("name"):
                fail(f"{path}: a {doc['kind']} without metadata.name")
            documents[doc["kind"]] = doc
            print(f"ok   {os.path.relpath(path, REPO)}: {doc['apiVersion']} {doc['kind']} {doc['metadata']['name']}")
    for kind in ("Deployment", "Service"):
        if kind not in documents:
            fail(f"no {kind} in deploy/kubernetes")

    deployment = documents["Deployment"]
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    selected = deployment["spec"]["selector"]["matchLabels"]
    if any(labels.get(k) != v for k, v in selected.items()):
        fail("the Deployment's selector does not match its pod labels")
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    env = {e["name"]: e["value"] for e in container.get("env", [])}

    service = documents["Service"]
    if service["spec"].get("type", "ClusterIP") != "ClusterIP":
        fail("the Service should be a ClusterIP")
    if any(labels.get(k) != v for k, v in service["spec"]["selector"].items()):
        fail("the Service does not select the Deployment's pods")
    for port in service["spec"]["ports"]:
        if port.get("protocol", "TCP") != "TCP" or port["targetPort"] not in ports:
            fail(f"Service port {port} should be TCP to a named container port")
    if "PodDisruptionBudget" in documents:
        pdb = documents["PodDisruptionBudget"]["spec"]["selector"]["matchLabels"]
        if any(labels.get(k) != v for k, v in pdb.items()):
            fail("the PodDisruptionBudget does not select the Deployment's pods")

    # Readiness: gRPC's health service on the camera port (a probe's grpc.port is a number).
    if container["readinessProbe"].get("grpc", {}).get("port") != ports["legible"]:
        fail("readinessProbe should be a gRPC probe of the legible port")
    # Liveness stays HTTP: the health service says NOT_SERVING while draining, and a failed
    # liveness probe would kill the drain.
    get = container["livenessProbe"]["httpGet"]
    if get["path"] != "/healthz" or get["port"] != "metrics":
        fail("livenessProbe should GET /healthz on the metrics port")
    if not env.get("LEGIBLE_METRICS", "").endswith(f":{ports['metrics']}"):
        fail("LEGIBLE_METRICS does not listen on the container's metrics port")
    if not env.get("LEGIBLE_LISTEN", "").endswith(f":{ports['legible']}"):
        fail("LEGIBLE_LISTEN does not listen on the container's legible port")
    grace = deployment["spec"]["template"]["spec"]["terminationGracePeriodSeconds"]
    pause = container.get("lifecycle", {}).get("preStop", {}).get("sleep", {}).get("seconds", 0)
    if grace < pause + 30:
        fail("terminationGracePeriodSeconds leaves less than 30 s for the drain")
    print("ok   selectors, ports, probes and grace period agree")

    check_print_config(args.legibled, env, "deployment.yaml")
    print(f"ok   deployment.yaml: legibled takes {', '.join(sorted(k for k in env if k.startswith('LEGIBLE_')))}")

    unit_env = {}
    for line in open(os.path.join(HERE, "legibled.service")):
        line = line.strip()
        if line.startswith("Environment="):
            for assignment in shlex.split(line[len("Environment="):]):
                key, _, value = assignment.partition("=")
                unit_env[key] = value
    check_print_config(args.legibled, unit_env, "legibled.service")
    print(f"ok   legibled.service: legibled takes {', '.join(sorted(k for k in unit_env if k.startswith('LEGIBLE_')))}")


if __name__ == "__main__":
    main()
