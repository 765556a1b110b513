// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Admin} from "./Admin.sol";

/// @notice Holds machine bonds; stakes are permanent (no withdrawal), as in 1.0. The IdentityRegistry stakes when a 1.0
/// machine registers; the admin stakes when a 2.0 machine (MachineRegistry only) is activated.
contract IdentityStaking is Admin {
    address public identityRegistry;
    bool public paused;
    mapping(uint256 => uint256) public stakeOf;

    event IdentityRegistrySet(address indexed identityRegistry);
    event Staked(uint256 indexed machineId, uint256 amount);
    event Paused();
    event Unpaused();

    error NotIdentityRegistry();
    error StakingPaused();
    error ZeroStake();

    function setIdentityRegistry(address registry) external onlyAdmin {
        identityRegistry = registry;
        emit IdentityRegistrySet(registry);
    }

    function stakeFor(uint256 machineId) external payable {
        if (msg.sender != identityRegistry && msg.sender != admin) revert NotIdentityRegistry();
        if (paused) revert StakingPaused();
        if (msg.value == 0) revert ZeroStake();
        stakeOf[machineId] += msg.value;
        emit Staked(machineId, msg.value);
    }

    function isStaked(uint256 machineId) external view returns (bool) {
        return stakeOf[machineId] > 0;
    }

    function pause() external onlyAdmin {
        paused = true;
        emit Paused();
    }

    function unpause() external onlyAdmin {
        paused = false;
        emit Unpaused();
    }
}
