<?php
/**
 * Personal data export and erasure (Tools → Export/Erase Personal Data).
 *
 * A person is found by e-mail: the visitor ids stored with their leads and
 * their WordPress account (identity `wp:<id>` in the sidecar). The sidecar
 * holds the memories and conversation history of those identities; the
 * rtac_lead posts are exported and erased here.
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

final class Rtac_Privacy {

	const PAGE = 50;

	private Rtac_Settings $settings;
	private ?Rtac_Client $client;

	public function __construct( Rtac_Settings $settings, ?Rtac_Client $client = null ) {
		$this->settings = $settings;
		$this->client   = $client;
	}

	public function register_exporter( array $exporters ): array {
		$exporters['rtac'] = array(
			'exporter_friendly_name' => __( 'Chat assistant', 'rtac' ),
			'callback'               => array( $this, 'export' ),
		);
		return $exporters;
	}

	public function register_eraser( array $erasers ): array {
		$erasers['rtac'] = array(
			'eraser_friendly_name' => __( 'Chat assistant', 'rtac' ),
			'callback'             => array( $this, 'erase' ),
		);
		return $erasers;
	}

	/**
	 * The sidecar identities of a person, as request `visitor` objects.
	 *
	 * @return array<int, array{id:string, wp_user_id?:int}>
	 */
	public function identities( string $email ): array {
		$visitors = array();
		foreach ( Rtac_Leads::ids_by_email( $email ) as $lead_id ) {
			$vid = (string) get_post_meta( $lead_id, Rtac_Registry::META_LEAD_VISITOR, true );
			if ( '' !== $vid ) {
				$visitors[ 'v:' . $vid ] = array( 'id' => $vid );
			}
		}
		$user = get_user_by( 'email', $email );
		if ( $user ) {
			// The sidecar derives `wp:<id>` from wp_user_id and ignores `id` then;
			// it still requires a non-empty `id`.
			$visitors[ 'wp:' . $user->ID ] = array(
				'id'         => 'wp:' . $user->ID,
				'wp_user_id' => (int) $user->ID,
			);
		}
		return array_values( $visitors );
	}

	/** @return array{data:array, done:bool}|WP_Error */
	public function export( string $email, int $page = 1 ) {
		$data = array();
		if ( 1 === $page && $this->settings->is_configured() ) {
			foreach ( $this->identities( $email ) as $i => $visitor ) {
				$res = $this->client()->request( 'POST', '/v1/privacy/export', array( 'visitor' => $visitor ) );
				if ( null !== $res['error'] ) {
					// Better no export than one that silently misses what the assistant remembers.
					return new WP_Error( 'rtac_export_failed', __( 'The chat assistant service could not be reached, so its data could not be exported. Please try again later.', 'rtac' ) );
				}
				foreach ( (array) ( $res['body']['memories'] ?? array() ) as $j => $memory ) {
					$data[] = array(
						'group_id'    => 'rtac-memories',
						'group_label' => __( 'What the chat assistant remembers', 'rtac' ),
						'item_id'     => 'rtac-memory-' . $i . '-' . $j,
						'data'        => self::pairs(
							array(
								__( 'Kind', 'rtac' )       => $memory['kind'] ?? '',
								__( 'Memory', 'rtac' )     => $memory['content'] ?? '',
								__( 'Topic', 'rtac' )      => $memory['topic'] ?? '',
								__( 'Importance', 'rtac' ) => $memory['importance'] ?? '',
								__( 'Created', 'rtac' )    => $memory['created_at'] ?? '',
								__( 'Updated', 'rtac' )    => $memory['updated_at'] ?? '',
							)
						),
					);
				}
			}
		}

		$leads = Rtac_Leads::ids_by_email( $email, self::PAGE, ( max( 1, $page ) - 1 ) * self::PAGE );
		foreach ( $leads as $lead_id ) {
			$f      = Rtac_Leads::fields( $lead_id );
			$fields = array();
			foreach ( Rtac_Leads::field_labels() as $key => $label ) {
				$fields[ $label ] = $f[ $key ];
			}
			$fields[ __( 'Date', 'rtac' ) ] = get_post_field( 'post_date_gmt', $lead_id );

			$data[] = array(
				'group_id'    => 'rtac-leads',
				'group_label' => __( 'Contact requests from the chat', 'rtac' ),
				'item_id'     => 'rtac-lead-' . $lead_id,
				'data'        => self::pairs( $fields ),
			);
		}
		return array(
			'data' => $data,
			'done' => count( $leads ) < self::PAGE,
		);
	}

	/** @return array{items_removed:bool, items_retained:bool, messages:string[], done:bool} */
	public function erase( string $email, int $page = 1 ): array {
		$removed  = false;
		$retained = false;
		$messages = array();

		// Identities come from the leads, so the sidecar goes first, on page 1,
		// while every lead still exists.
		if ( 1 === $page ) {
			foreach ( $this->identities( $email ) as $visitor ) {
				if ( $this->settings->is_configured() ) {
					$res = $this->client()->request( 'POST', '/v1/privacy/erase', array( 'visitor' => $visitor ) );
					if ( null !== $res['error'] ) {
						$retained   = true;
						$messages[] = __( 'The chat assistant service could not be reached; what it remembers about this person was not erased. Please run the erasure again later.', 'rtac' );
					} elseif ( ! empty( $res['body']['erased'] )
						&& ( (int) ( $res['body']['memories'] ?? 0 ) > 0 || (int) ( $res['body']['turns'] ?? 0 ) > 0 ) ) {
						$removed = true;
					}
				}
				if ( isset( $visitor['wp_user_id'] ) ) {
					delete_user_meta( (int) $visitor['wp_user_id'], Rtac_Registry::USER_META_LEAD );
				} else {
					delete_transient( Rtac_Registry::lead_transient( $visitor['id'] ) );
				}
			}
			$messages = array_values( array_unique( $messages ) );
		}

		// Deleted leads drop out of the query, so every page reads from the start.
		$stuck = false;
		foreach ( Rtac_Leads::ids_by_email( $email, self::PAGE ) as $lead_id ) {
			if ( wp_delete_post( $lead_id, true ) ) {
				$removed = true;
			} else {
				$retained = true;
				$stuck    = true; // Stop paging: the same lead would come back forever.
			}
		}
		return array(
			'items_removed'  => $removed,
			'items_retained' => $retained,
			'messages'       => $messages,
			'done'           => $stuck || 0 === count( Rtac_Leads::ids_by_email( $email, 1 ) ),
		);
	}

	/** admin_init: the suggested text under Settings → Privacy. */
	public function add_policy_content(): void {
		if ( ! function_exists( 'wp_add_privacy_policy_content' ) ) {
			return;
		}
		$privacy = $this->settings->privacy();
		$parts   = array(
			'<p>' . esc_html__( 'This site offers a chat assistant. When you write to it, your message, the address and title of the page you are on and your language are sent to our assistant service to compose an answer. The assistant answers only from information published by us.', 'rtac' ) . '</p>',
			'<p>' . esc_html__( 'To recognise a returning visitor, the assistant stores a random identifier in a cookie named rtac_visitor for one year. If you are logged in, your account is used instead.', 'rtac' ) . '</p>',
			'<p>' . ( $privacy['memory']
				? esc_html__( 'The assistant remembers facts you tell it (for example your preferences) to help you better next time. They are stored encrypted. You can ask the assistant to forget something, or ask us to export or erase everything it remembers about you.', 'rtac' )
				: esc_html__( 'The assistant does not keep a memory of facts about you between visits.', 'rtac' ) ) . '</p>',
			'<p>' . esc_html__( 'Your conversations with the assistant (your messages, its answers and the pages it used) are kept, encrypted, for a limited retention period and are then deleted automatically. While they are kept, our staff can read them, to see what visitors ask and to improve the answers. You can ask us to export or erase them sooner.', 'rtac' ) . '</p>',
			'<p>' . esc_html__( 'If you leave your name, e-mail address or phone number in the chat, we store them with your message to contact you, and e-mail them to the site owner.', 'rtac' ) . '</p>',
		);
		if ( '' !== trim( $privacy['retention_notice'] ) ) {
			$parts[] = '<p>' . nl2br( esc_html( $privacy['retention_notice'] ) ) . '</p>';
		}
		wp_add_privacy_policy_content( __( 'Chat assistant (rtac)', 'rtac' ), wp_kses_post( implode( "\n", $parts ) ) );
	}

	private static function pairs( array $map ): array {
		$out = array();
		foreach ( $map as $name => $value ) {
			if ( '' !== (string) $value ) {
				$out[] = array(
					'name'  => (string) $name,
					'value' => (string) $value,
				);
			}
		}
		return $out;
	}

	private function client(): Rtac_Client {
		return $this->client ?? Rtac_Client::from_settings( $this->settings );
	}
}
