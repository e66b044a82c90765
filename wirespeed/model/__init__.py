"""Golden models of the wirespeed RTL blocks (pure Python, bit-exact with the contracts in docs/)."""

from .gre import (  # noqa: F401
    DROP_OUTCOMES,
    FORWARD_OUTCOMES,
    MALFORMED_OUTCOMES,
    NUM_OUTCOMES,
    GreConfig,
    Outcome,
    Result,
    gre_decap,
    ipv4_checksum,
    ones_add,
    ones_sum,
    rfc6040_decap,
    tally,
)
