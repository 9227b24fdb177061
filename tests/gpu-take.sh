# Sourced by the GPU tests (tests/gpu-tests.cmake.in): the GPUs CTest gave
# this test through a resource group (CTEST_RESOURCE_GROUP_<i>_GPUS,
# "id:N,slots:1", N a CUDA device index) become the only devices it sees
# (CUDA_VISIBLE_DEVICES), so that a suite on GPU 0 cannot reach GPU 1, where
# another suite is measuring (a peer case would hold work there).  Indices
# are taken within a CUDA_VISIBLE_DEVICES already set.  Without resource
# groups (one GPU, or ctest without a resource spec) nothing changes; nor
# with a count of 0, which CTest (3.25) gives every test without
# RESOURCE_GROUPS once a resource spec is in use.
if [ -n "${CTEST_RESOURCE_GROUP_COUNT:-}" ] && [ "$CTEST_RESOURCE_GROUP_COUNT" != 0 ]; then
    cts_gpus=()
    IFS=, read -ra cts_parent <<<"${CUDA_VISIBLE_DEVICES:-}"
    for ((cts_i = 0; cts_i < CTEST_RESOURCE_GROUP_COUNT; cts_i++)); do
        cts_v=CTEST_RESOURCE_GROUP_${cts_i}_GPUS
        cts_v=${!cts_v:-}
        cts_id=${cts_v#id:}
        cts_id=${cts_id%%,*}
        if ! [[ $cts_id =~ ^[0-9]+$ ]]; then
            echo "gpu-take.sh: resource group $cts_i has no GPU id ('$cts_v'): the resource spec's gpus are CUDA device indices" >&2
            exit 2
        fi
        if [ ${#cts_parent[@]} -gt 0 ]; then
            if [ "$cts_id" -ge ${#cts_parent[@]} ]; then
                echo "gpu-take.sh: GPU $cts_id of the resource spec is not in CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES" >&2
                exit 2
            fi
            cts_id=${cts_parent[$cts_id]}
        fi
        cts_gpus+=("$cts_id")
    done
    CUDA_VISIBLE_DEVICES=$(IFS=,; echo "${cts_gpus[*]}")
    export CUDA_VISIBLE_DEVICES
    echo "gpu-take.sh: this test's GPUs (CTest resource groups): CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES"
fi
