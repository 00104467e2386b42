# The deltameta image with its core installed by Spack instead: deltameta +mpi +snappy +rados
# at the version spack/envs/rados/spack.yaml pins (every dependency an external from
# Debian, the core from the pinned commit of this clone's history), on top of the image of
# docker/Dockerfile, whose tools it replaces. docker/build-spack-image.sh assembles the
# build context this expects: repo/ (a clone) and archives/ (Spack's release archives for
# scripts/setup-spack.sh --from, or nothing: then it clones them).
ARG BASE=debian:bookworm-slim
ARG IMAGE=deltameta

FROM ${BASE} AS spack-build
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      build-essential ca-certificates cmake gfortran git libasio-dev libmpich-dev librados-dev librocksdb-dev \
      libsnappy-dev mpich nlohmann-json3-dev python3 python3-venv >/dev/null \
    && rm -rf /var/lib/apt/lists/*
COPY archives /archives
COPY repo /src
RUN from=; [ ! -f /archives/spack-1.0.2.tar.gz ] || from="--from /archives"; \
    bash /src/scripts/setup-spack.sh $from /opt/spack-root
ENV SPACK_PYTHON=/opt/spack-root/python/bin/python PATH=/opt/spack-root/spack/bin:$PATH
RUN spack config --scope site add "config:install_tree:root:/opt/deltameta-spack" \
    && spack -e /src/spack/envs/rados concretize \
    && spack -e /src/spack/envs/rados install \
    && commit=$(grep -m1 -oE 'commit="[0-9a-f]{40}"' /src/spack/spack_repo/deltameta/packages/deltameta/package.py | cut -c9-48) \
    && printf '{"core_source": "spack", "core_revision": "%s", "core_commit": "%s", "core_version": "%s", "built": "%s"}\n' \
         "$(echo "$commit" | cut -c1-12)" "$commit" "$(spack -e /src/spack/envs/rados find --format '{version}' deltameta)" \
         "$(date -u +%Y-%m-%dT%H:%M:%SZ)" > /opt/deltameta-spack/image.json \
    && mkdir -p /opt/deltameta-spack/bin \
    && cp -P /src/spack/envs/rados/.spack-env/view/bin/deltameta_* /opt/deltameta-spack/bin/

FROM ${IMAGE}
COPY --from=spack-build /opt/deltameta-spack /opt/deltameta-spack
RUN rm -f /opt/deltameta/bin/deltameta_* \
    && ln -s /opt/deltameta-spack/bin/deltameta_* /opt/deltameta/bin/ \
    && cp /opt/deltameta-spack/image.json /opt/deltameta/image.json \
    && /opt/deltameta/bin/deltameta_client --help >/dev/null
LABEL io.deltameta.core="spack"
