"""Distributed training under ``torchrun --nproc-per-node N`` (environment RANK, WORLD_SIZE,
LOCAL_RANK): DistributedDataParallel over NCCL on CUDA, Gloo on CPU. Without torchrun the process is
rank 0 of 1 and every collective here is the identity."""
from __future__ import annotations

import os
from typing import List, NamedTuple

import torch
import torch.distributed as dist


class World(NamedTuple):
    """This process's place in a torchrun job (rank 0 of 1 without torchrun)."""

    rank: int = 0
    size: int = 1
    local_rank: int = 0

    @property
    def distributed(self) -> bool:
        return self.size > 1


def world_from_environment() -> World:
    return World(int(os.environ.get("RANK", "0")), int(os.environ.get("WORLD_SIZE", "1")),
                 int(os.environ.get("LOCAL_RANK", "0")))


def join(world: World) -> torch.device:
    """The device of this rank (its local GPU, or the CPU), with the process group started."""
    cuda = torch.cuda.is_available()
    device = torch.device(f"cuda:{world.local_rank}" if cuda and world.distributed else "cuda" if cuda else "cpu")
    if cuda:
        torch.cuda.set_device(device)
    if world.distributed and not dist.is_initialized():
        dist.init_process_group("nccl" if cuda else "gloo")
    return device


def leave(world: World) -> None:
    """Waits for every rank, then ends the process group."""
    if world.distributed and dist.is_initialized():
        dist.barrier()
        dist.destroy_process_group()


def barrier(world: World) -> None:
    if world.distributed:
        dist.barrier()


def all_reduce_mean(values: List[float], world: World, device: torch.device) -> List[float]:
    if not world.distributed:
        return values
    t = torch.tensor(values, dtype=torch.float64, device=device)
    dist.all_reduce(t)
    return (t / world.size).tolist()


def broadcast_object(value, world: World):
    if not world.distributed:
        return value
    box = [value]
    dist.broadcast_object_list(box, src=0)
    return box[0]


def all_gather_object(value, world: World) -> list:
    """Every rank's ``value``, in rank order."""
    if not world.distributed:
        return [value]
    values = [None] * world.size
    dist.all_gather_object(values, value)
    return values
